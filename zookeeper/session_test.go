package zookeeper

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// TestSilentServerReconnect: with the session's connection black-holed, a
// KeepAlive fails at its deadline; its sync, unanswered for half the
// session timeout, drops the connection; go-zookeeper reconnects within
// the session timeout, and the session and its node go on (Curator's
// SUSPENDED, then RECONNECTED).
func TestSilentServerReconnect(t *testing.T) {
	servers, tick := testServers(t)
	r := startRelay(t, servers[0])
	s := newStore(t, []string{r.addr()}, Options{TickTime: tick})
	ctx := testCtx(t)
	ss, err := s.NewSession(ctx, max(3*time.Second, 2*tick))
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close(ctx)
	el := uniqueName("reconnect-")
	rec, err := ss.Create(ctx, el, []byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	r.freeze()
	short, cancel := context.WithTimeout(ctx, ss.TTL()/6)
	defer cancel()
	if err := ss.KeepAlive(short); !errors.Is(err, backends.ErrCanceled) {
		t.Fatalf("KeepAlive over a silent connection: %v, want ErrCanceled at its deadline", err)
	}
	// A sync in flight when the connection drops fails with
	// ErrConnectionClosed; until go-zookeeper reconnects, it fails the
	// requests it holds with ErrNoServer at each pass over the server list
	// (every second).
	for err := ss.KeepAlive(ctx); err != nil; err = ss.KeepAlive(ctx) {
		if !errors.Is(err, backends.ErrUnavailable) && !errors.Is(err, zk.ErrConnectionClosed) {
			t.Fatalf("KeepAlive while go-zookeeper reconnects: %v, want success or ErrUnavailable", err)
		}
	}
	if got := ss.(*session).l.negotiated(); got != ss.TTL() {
		t.Fatalf("reconnected with a session timeout of %v, want the TTL %v asked again", got, ss.TTL())
	}
	direct := newStore(t, servers, Options{TickTime: tick})
	got, err := direct.Get(ctx, el)
	if err != nil || got.Token != rec.Token || got.Owner != ss.ID() {
		t.Fatalf("after the reconnect Get = %+v, %v; want token %d owner %s", got, err, rec.Token, ss.ID())
	}
}

// TestNegotiatedTimeout: a session the server grants less than the TTL
// asked fails to open; one it grants more reports what it granted. It
// assumes the servers' default min/maxSessionTimeout (2× and 20× tickTime).
func TestNegotiatedTimeout(t *testing.T) {
	servers, tick := testServers(t)
	s := newStore(t, servers, Options{TickTime: tick, MinTTL: time.Millisecond, MaxTTL: 100 * tick})
	ctx := testCtx(t)
	if ss, err := s.NewSession(ctx, 40*tick); err == nil || !strings.Contains(err.Error(), "granted") {
		t.Fatalf("NewSession above maxSessionTimeout: %v, want an error saying what was granted", err)
	} else if ss != nil {
		t.Fatalf("NewSession returned a session %s with its error", ss.ID())
	}
	ss, err := s.NewSession(ctx, tick)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close(ctx)
	if ss.TTL() != 2*tick {
		t.Fatalf("TTL %v for a session asked %v below minSessionTimeout, want the %v granted", ss.TTL(), tick, 2*tick)
	}
}

// TestDigestAuth: the ACL and credentials given reach the nodes: a Store
// without the credentials cannot read them.
func TestDigestAuth(t *testing.T) {
	servers, tick := testServers(t)
	prefix := uniqueName("/leasehold-acl-")
	auth := []Auth{{Scheme: "digest", Credentials: []byte("alice:secret")}}
	acl := zk.DigestACL(zk.PermAll, "alice", "secret")
	owner := newStore(t, servers, Options{TickTime: tick, Prefix: prefix, Auth: auth, ACL: acl})
	other := newStore(t, servers, Options{TickTime: tick, Prefix: prefix})
	ctx := testCtx(t)
	ss, err := owner.NewSession(ctx, max(2*time.Second, 2*tick))
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close(ctx)
	rec, err := ss.Create(ctx, "a", []byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Get(ctx, "a"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("Get without the credentials: %v, want zk.ErrNoAuth", err)
	}
	if got, err := owner.Get(ctx, "a"); err != nil || got.Token != rec.Token {
		t.Fatalf("Get with the credentials = %+v, %v", got, err)
	}
	t.Cleanup(func() { removeTree(t, servers, auth, prefix) })
}

// removeTree deletes a persistent test tree.
func removeTree(t *testing.T, servers []string, auth []Auth, root string) {
	c, _, err := zk.Connect(servers, 4*time.Second, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close()
	for _, a := range auth {
		_ = c.AddAuth(a.Scheme, a.Credentials)
	}
	var del func(p string)
	del = func(p string) {
		kids, _, _ := c.Children(p)
		for _, k := range kids {
			del(p + "/" + k)
		}
		_ = c.Delete(p, -1)
	}
	del(root)
}

// TestServerCallsLeaveNoGoroutines: after sessions, watches and Close, no
// goroutine of the Store or of go-zookeeper is left.
func TestServerCallsLeaveNoGoroutines(t *testing.T) {
	servers, tick := testServers(t)
	s, err := New(servers, Options{TickTime: tick, ConnOptions: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	ss, err := storeOf(s).NewSession(ctx, max(2*time.Second, 2*tick))
	if err != nil {
		t.Fatal(err)
	}
	el := uniqueName("leak-")
	rec, err := ss.Create(ctx, el, []byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	watching := hookWatching(t)
	w := storeOf(s).Watch(func(backends.Change) {})
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: rec})
	// The key is unchanged: the request leaves its watches.
	awaitWatching(t, watching, el)
	if _, err := storeOf(s).NewSession(ctx, max(2*time.Second, 2*tick)); err != nil { // left open: Close ends it
		t.Fatal(err)
	}
	if err := ss.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if g := adapterGoroutines(); g != "" {
		t.Fatalf("after Close:\n%s", g)
	}
}
