package zookeeper

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/lease"
)

// TestHandOverMarkerDenied: two users, alice and bob, share a prefix and
// its election's parent nodes, and each makes its own nodes with the
// default ACL (all rights to their creator only). Alice leads; bob waits
// at the head of the line; alice's second candidate waits behind him.
// A handover to that candidate must nudge bob's entry, which alice may
// not write: DeleteMarked fails with ErrPermission and changes nothing,
// and the elector releases the key without the marker (logging why), so
// bob, the head of the line, leads next. Nothing was handed over, and
// HandOver says so (ErrNotHandedOver).
func TestHandOverMarkerDenied(t *testing.T) {
	servers, tick := testServers(t)
	prefix, el := uniqueName("/leasehold-markdenied-"), "denied"
	t.Cleanup(func() { removeTree(t, servers, digest("alice"), prefix) })
	alice := newStore(t, servers, Options{TickTime: tick, Prefix: prefix, Auth: digest("alice")})
	shareParents(t, servers, alice, el)
	bob := newStore(t, servers, Options{TickTime: tick, Prefix: prefix, Auth: digest("bob")})
	logs := &syncBuffer{}
	ttl := max(2*time.Second, 2*tick)
	leader := testElector(t, alice, "leader", ttl, slog.New(slog.NewTextHandler(logs, nil)))
	head := testElector(t, bob, "head", ttl, nil)
	target := testElector(t, alice, "target", ttl, nil)
	ctx := testCtx(t)

	l, err := leader.Campaign(ctx, el)
	if err != nil {
		t.Fatalf("leader: Campaign: %v", err)
	}
	headWon := campaignAsync(ctx, head, el)
	awaitWaiting(t, leader, el, 1)
	targetWon := campaignAsync(ctx, target, el)
	awaitWaiting(t, leader, el, 2)

	if err := l.HandOver(ctx, "target"); !errors.Is(err, lease.ErrNotHandedOver) || !errors.Is(err, backends.ErrPermission) {
		t.Fatalf("HandOver with the marker denied: %v, want an error wrapping ErrNotHandedOver and backends.ErrPermission", err)
	}
	select {
	case w := <-headWon:
		if w.err != nil {
			t.Fatalf("head: Campaign: %v", w.err)
		}
		if w.l.Token <= l.Token {
			t.Fatalf("head leads at token %d, not above the leader's %d", w.l.Token, l.Token)
		}
	case w := <-targetWon:
		t.Fatalf("the target led (token %d, err %v) although bob's entry was ahead of it", w.token(), w.err)
	case <-time.After(ttl + 3*time.Second):
		t.Fatal("no one led after the handover: the key was not released without its marker")
	}
	if !strings.Contains(logs.String(), "handover marker refused") {
		t.Errorf("the leader logged no refused marker:\n%s", logs)
	}
}

// digest returns the digest credentials of user.
func digest(user string) []Auth {
	return []Auth{{Scheme: "digest", Credentials: []byte(user + ":" + user + "-pw")}}
}

// shareParents makes the prefix of s and election's persistent nodes
// (queue, roster and epoch nodes, with their parents) with all rights
// for both alice and bob; makeEpoch makes any node so, not only an epoch
// node.
func shareParents(t *testing.T, servers []string, s *store, election string) {
	t.Helper()
	both := append(zk.DigestACL(zk.PermAll, "alice", "alice-pw"), zk.DigestACL(zk.PermAll, "bob", "bob-pw")...)
	conn, _, err := zk.Connect(servers, 4*time.Second, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.AddAuth("digest", []byte("alice:alice-pw")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.queuePath(election), s.rosterPath(election), s.epochPath(election)} {
		if err := makeEpoch(conn, p, both); err != nil {
			t.Fatalf("make %s: %v", p, err)
		}
	}
}

// testElector returns an elector on s, closed at the test's end.
func testElector(t *testing.T, s *store, identity string, ttl time.Duration, log *slog.Logger) *lease.LeaseElector {
	t.Helper()
	e, err := lease.New(backends.NewStore(s), lease.Options{Identity: identity, TTL: ttl, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

// won is the outcome of a Campaign.
type won struct {
	l   *lease.Leadership
	err error
}

func (w won) token() fencing.Token {
	if w.l == nil {
		return 0
	}
	return w.l.Token
}

// campaignAsync campaigns in the background and sends the outcome.
func campaignAsync(ctx context.Context, e *lease.LeaseElector, election string) <-chan won {
	ch := make(chan won, 1)
	go func() {
		l, err := e.Campaign(ctx, election)
		ch <- won{l, err}
	}()
	return ch
}

// awaitWaiting waits until e sees n candidates waiting besides the
// leader in election's roster.
func awaitWaiting(t *testing.T, e *lease.LeaseElector, election string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ch, err := e.ObserveCandidates(ctx, election)
	if err != nil {
		t.Fatal(err)
	}
	for cs := range ch {
		waiting := 0
		for _, c := range cs {
			if !c.Leader {
				waiting++
			}
		}
		if waiting == n {
			return
		}
	}
	t.Fatalf("%d candidates did not wait in %q within 10s", n, election)
}
