package zookeeper

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// TestAuth is the ZooKeeper part of the suite with auth on: a holder with
// digest credentials leads under a prefix of its own; an unauthenticated
// raw go-zookeeper client, leasehold without credentials, with another
// user's and with a wrong password all try to change its nodes; each fails
// with a clear error, and the holder keeps its key.
func TestAuth(t *testing.T) {
	servers, tick := testServers(t)
	for _, closed := range []bool{false, true} {
		name := map[bool]string{false: "WorldRead", true: "NoWorldRead"}[closed]
		t.Run(name, func(t *testing.T) { testAuth(t, servers, tick, closed) })
	}
}

// authScene is the holder's side of TestAuth.
type authScene struct {
	servers         []string
	tick            time.Duration
	prefix, el, key string
	holder          *store
	rec, entry      backends.Record
}

func testAuth(t *testing.T, servers []string, tick time.Duration, noWorldRead bool) {
	sc := &authScene{servers: servers, tick: tick, prefix: uniqueName("/leasehold-auth-"), el: "team/lead", key: "k/v"}
	alice := []Auth{{Scheme: "digest", Credentials: []byte("alice:s3cret-pw")}}
	t.Cleanup(func() { removeTree(t, servers, alice, sc.prefix) })
	sc.holder = newStore(t, servers, Options{TickTime: tick, Prefix: sc.prefix, Auth: alice, NoWorldRead: noWorldRead})
	ctx := testCtx(t)
	ss, err := sc.holder.NewSession(ctx, max(2*time.Second, 2*tick))
	if err != nil {
		t.Fatalf("holder's NewSession: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close(ctx) })
	if sc.rec, err = ss.Create(ctx, sc.el, []byte("alice")); err != nil {
		t.Fatal(err)
	}
	// Enqueued after the Create, the entry is no lead node (which Dequeue
	// leaves to End), only an entry in line.
	if sc.entry, err = ss.Enqueue(ctx, sc.el); err != nil {
		t.Fatal(err)
	}
	if err := sc.holder.GuardedPut(ctx, backends.Guarded{Election: sc.el, Token: sc.rec.Token, Key: sc.key, Value: []byte("alice's")}); err != nil {
		t.Fatal(err)
	}
	t.Run("RawUnauthenticated", func(t *testing.T) { sc.raw(t, noWorldRead) })
	t.Run("NoCredentials", func(t *testing.T) {
		sc.intruder(t, nil, "no credentials (world:anyone)", noWorldRead)
	})
	t.Run("OtherUser", func(t *testing.T) {
		sc.intruder(t, []Auth{{Scheme: "digest", Credentials: []byte("mallory:s3cret-pw")}}, "digest:mallory", noWorldRead)
	})
	t.Run("WrongPassword", func(t *testing.T) {
		sc.intruder(t, []Auth{{Scheme: "digest", Credentials: []byte("alice:wrong-pw")}}, "digest:alice", noWorldRead)
	})
	t.Run("AuthFailed", func(t *testing.T) { sc.authFailed(t) })
	sc.holds(t)
}

// holds checks that the holder still holds its key, value and data.
func (sc *authScene) holds(t *testing.T) {
	t.Helper()
	ctx := testCtx(t)
	got, err := sc.holder.Get(ctx, sc.el)
	if err != nil || got.Token != sc.rec.Token || string(got.Value) != "alice" {
		t.Fatalf("holder's Get = %+v, %v; want token %d, value alice", got, err, sc.rec.Token)
	}
	if ahead, err := sc.holder.Ahead(ctx, sc.el, sc.entry.Token+1); err != nil || ahead.Token != sc.entry.Token {
		t.Fatalf("holder's queue entry: Ahead = %+v, %v; want token %d", ahead, err, sc.entry.Token)
	}
}

// raw: a go-zookeeper client without credentials may read the nodes only
// if world read is on, and may not set, delete or re-ACL any of them, nor
// create nodes under the prefix.
func (sc *authScene) raw(t *testing.T, noWorldRead bool) {
	c, _, err := zk.Connect(sc.servers, 4*time.Second, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	leader, queue, data := sc.holder.leaderPath(sc.el), sc.holder.queuePath(sc.el), sc.holder.dataPath(sc.key)
	entry := queue + "/" + entryName(sc.entry.Owner, sc.entry.Token)
	for _, p := range []string{leader, entry, data} {
		_, _, err := c.Get(p)
		if noWorldRead != errors.Is(err, zk.ErrNoAuth) || !noWorldRead && err != nil {
			t.Errorf("raw get %s: %v; want %s", p, err, map[bool]string{false: "allowed", true: "zk.ErrNoAuth"}[noWorldRead])
		}
	}
	for _, p := range []string{sc.prefix, leader, queue, entry, data} {
		if _, err := c.Set(p, []byte("mallory"), -1); !errors.Is(err, zk.ErrNoAuth) {
			t.Errorf("raw set %s: %v, want zk.ErrNoAuth", p, err)
		}
		if _, err := c.SetACL(p, zk.WorldACL(zk.PermAll), -1); !errors.Is(err, zk.ErrNoAuth) {
			t.Errorf("raw setACL %s: %v, want zk.ErrNoAuth", p, err)
		}
	}
	for _, p := range []string{entry, leader, data} {
		if err := c.Delete(p, -1); !errors.Is(err, zk.ErrNoAuth) {
			t.Errorf("raw delete %s: %v, want zk.ErrNoAuth", p, err)
		}
	}
	for _, p := range []string{sc.prefix + "/x", queue + "/~x-0000000000", sc.prefix + "/" + backends.DataSegment + "/x"} {
		if _, err := c.Create(p, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNoAuth) {
			t.Errorf("raw create %s: %v, want zk.ErrNoAuth", p, err)
		}
	}
	sc.holds(t)
}

// intruder: leasehold with credentials other than the holder's (or none)
// fails at NewSession with ErrPermission naming the prefix and the
// identity but no password, cannot overwrite the holder's data or dequeue
// its entry, and reads only if world read is on.
func (sc *authScene) intruder(t *testing.T, auth []Auth, who string, noWorldRead bool) {
	s := newStore(t, sc.servers, Options{TickTime: sc.tick, Prefix: sc.prefix, Auth: auth})
	ctx := testCtx(t)
	start := time.Now()
	ss, err := s.NewSession(ctx, max(2*time.Second, 2*sc.tick))
	if err == nil {
		_ = ss.Close(ctx)
		t.Fatalf("NewSession as %s under the holder's prefix succeeded; want ErrPermission", who)
	}
	msg := err.Error()
	if !errors.Is(err, backends.ErrPermission) || !strings.Contains(msg, sc.prefix) || !strings.Contains(msg, who) ||
		!strings.Contains(msg, "not authenticated") || strings.Contains(msg, "pw") {
		t.Errorf("NewSession as %s: %v; want ErrPermission naming %s, the identity and the server's words, no password",
			who, err, sc.prefix)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("NewSession took %v to fail", d)
	}
	err = s.GuardedPut(ctx, backends.Guarded{Election: sc.el, Token: sc.rec.Token, Key: sc.key, Value: []byte("mallory")})
	if !errors.Is(err, backends.ErrPermission) {
		t.Errorf("GuardedPut over the holder's data as %s: %v, want ErrPermission", who, err)
	}
	if err := s.Dequeue(ctx, sc.entry); !errors.Is(err, backends.ErrPermission) {
		t.Errorf("Dequeue of the holder's entry as %s: %v, want ErrPermission", who, err)
	}
	got, err := s.Get(ctx, sc.el)
	switch {
	case noWorldRead && !errors.Is(err, backends.ErrPermission):
		t.Errorf("Get as %s with world read off: %+v, %v; want ErrPermission", who, got, err)
	case !noWorldRead && (err != nil || got.Token != sc.rec.Token):
		t.Errorf("Get as %s with world read on: %+v, %v; want token %d", who, got, err, sc.rec.Token)
	}
	sc.holds(t)
}

// authFailed: credentials of a scheme the server has no provider for are
// refused (AUTH_FAILED): NewSession and Get fail with ErrPermission.
func (sc *authScene) authFailed(t *testing.T) {
	s := newStore(t, sc.servers, Options{TickTime: sc.tick, Prefix: sc.prefix,
		Auth: []Auth{{Scheme: "nosuchscheme", Credentials: []byte("x")}}})
	ctx := testCtx(t)
	if ss, err := s.NewSession(ctx, max(2*time.Second, 2*sc.tick)); !errors.Is(err, backends.ErrPermission) ||
		!errors.Is(err, zk.ErrAuthFailed) {
		if ss != nil {
			_ = ss.Close(ctx)
		}
		t.Errorf("NewSession with refused credentials: %v; want ErrPermission and zk.ErrAuthFailed", err)
	}
	if _, err := s.Get(ctx, sc.el); !errors.Is(err, backends.ErrPermission) {
		t.Errorf("Get with refused credentials: %v; want ErrPermission", err)
	}
}
