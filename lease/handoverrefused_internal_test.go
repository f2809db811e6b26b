package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// TestHandOverRefused: a handover with no candidate to take it fails
// with ErrNoCandidate and keeps the leadership, whether the leader follows
// its roster or reads it for the handover: to itself, by identity or
// session; to the next in line when none waits; to a candidate that may
// not lead; when the roster holds no record at all (deleted behind the
// electors' backs). After the leadership ended, HandOver says so
// (ErrLost).
func TestHandOverRefused(t *testing.T) {
	store, cli := embeddedStoreClient(t)
	for _, follow := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		el := map[bool]string{false: "refused/read", true: "refused/follow"}[follow]
		leader, l := leading(t, ctx, store, el, Options{Identity: "leader", FollowRoster: follow})
		watcher := testElector(t, store, Options{Identity: "watcher", NoLead: true})
		go func() { _, _ = watcher.Campaign(ctx, el) }()
		awaitCandidates(t, ctx, leader, el, 2)
		for _, to := range []string{"leader", leader.SessionID(), "", "watcher", "nobody"} {
			err := l.HandOver(ctx, to)
			if !errors.Is(err, ErrNoCandidate) {
				t.Fatalf("follow %v: HandOver(%q) = %v, want ErrNoCandidate", follow, to, err)
			}
			if l.Err() != nil {
				t.Fatalf("follow %v: after HandOver(%q) failed, the leadership ended: %v", follow, to, l.Err())
			}
		}
		if _, err := cli.Delete(ctx, keys.Roster("/leasehold/", el), clientv3.WithPrefix()); err != nil {
			t.Fatal(err)
		}
		awaitCandidates(t, ctx, leader, el, 0)
		if err := l.HandOver(ctx, ""); !errors.Is(err, ErrNoCandidate) || l.Err() != nil {
			t.Fatalf("follow %v: HandOver with no records = %v (leadership: %v), want ErrNoCandidate and still leading", follow, err, l.Err())
		}
		if err := l.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if err := l.HandOver(ctx, ""); !errors.Is(err, ErrLost) {
			t.Fatalf("follow %v: HandOver after Resign = %v, want ErrLost", follow, err)
		}
		_ = watcher.Close(ctx)
		_ = leader.Close(ctx)
		cancel()
	}
}

// testElector returns a new elector on store with o, whose TTL is 2 s.
func testElector(t *testing.T, store *backends.Store, o Options) *LeaseElector {
	t.Helper()
	o.TTL = 2 * time.Second
	e, err := New(store, o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// leading returns a new elector with o (see testElector) and its
// leadership of election.
func leading(t *testing.T, ctx context.Context, store *backends.Store, election string, o Options) (*LeaseElector, *Leadership) {
	t.Helper()
	e := testElector(t, store, o)
	l, err := e.Campaign(ctx, election)
	if err != nil {
		t.Fatal(err)
	}
	return e, l
}
