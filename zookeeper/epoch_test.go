package zookeeper

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
)

// TestEpochClosesTheGap: if the holder's node is deleted and a successor
// creates its own between the read and the multi of Delete or GuardedPut
// (the window testHookHeld opens), the multi fails: Delete deletes
// nothing (ErrNotFound) and GuardedPut writes nothing (ErrNotLeader). A
// leader node's version cannot tell the two apart (both are 1); the epoch
// node's can.
func TestEpochClosesTheGap(t *testing.T) {
	s, raw, tick := epochStore(t, "/leasehold-epoch-")
	ctx := testCtx(t)
	for _, op := range []string{"Delete", "GuardedPut"} {
		t.Run(op, func(t *testing.T) {
			el := "gap/" + op
			a, b := newTestSession(t, s, tick), newTestSession(t, s, tick)
			first, err := a.Create(ctx, el, []byte("a"))
			if err != nil {
				t.Fatal(err)
			}
			var second backends.Record
			testHookHeld = func() {
				testHookHeld = func() {}
				if err := raw.Delete(s.leaderPath(el), -1); err != nil { // a third party, or a resign
					t.Errorf("delete in the window: %v", err)
				}
				if second, err = b.Create(ctx, el, []byte("b")); err != nil {
					t.Errorf("successor's Create in the window: %v", err)
				}
			}
			t.Cleanup(func() { testHookHeld = func() {} })
			switch op {
			case "Delete":
				if err := backendtest.Release(ctx, a, el, first.Token); !errors.Is(err, backends.ErrNotFound) {
					t.Fatalf("Delete of a replaced incarnation: %v, want ErrNotFound", err)
				}
			case "GuardedPut":
				err := s.GuardedPut(ctx, backends.Guarded{Election: el, Token: first.Token, Key: "gap-data", Value: []byte("stale")})
				if !errors.Is(err, backends.ErrNotLeader) {
					t.Fatalf("GuardedPut at a replaced incarnation: %v, want ErrNotLeader", err)
				}
				if ok, _, err := raw.Exists(s.dataPath("gap-data")); err != nil || ok {
					t.Fatalf("data node after the refused GuardedPut: exists %v, %v", ok, err)
				}
			}
			if got, err := s.Get(ctx, el); err != nil || got.Token != second.Token || second.Token == 0 {
				t.Fatalf("Get = %+v, %v; want the successor's token %d", got, err, second.Token)
			}
		})
	}
}

func newTestSession(t *testing.T, s *store, tick time.Duration) backends.Session {
	t.Helper()
	ss, err := s.NewSession(testCtx(t), max(2*time.Second, 2*tick))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close(testCtx(t)) })
	return ss
}

// TestEpochOlderNodes: a leader node made by an older version, whose
// create raised no epoch, is still held for Delete and GuardedPut, both
// when the epoch node exists from an earlier term and when it does not.
func TestEpochOlderNodes(t *testing.T) {
	s, raw, tick := epochStore(t, "/leasehold-epoch-old-")
	ctx := testCtx(t)
	ss := newTestSession(t, s, tick)
	for _, el := range []string{"with-epoch", "without-epoch"} {
		if el == "with-epoch" { // a term of this version first: the epoch node exists
			rec, err := ss.Create(ctx, el, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := backendtest.Release(ctx, ss, el, rec.Token); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := raw.Create(s.leaderPath(el), []byte("old"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		_, st, err := raw.Exists(s.leaderPath(el))
		if err != nil {
			t.Fatal(err)
		}
		token := uint64(st.Czxid)
		if err := s.GuardedPut(ctx, backends.Guarded{Election: el, Token: token, Key: "old-" + el, Value: []byte("v")}); err != nil {
			t.Fatalf("%s: GuardedPut at an older version's node: %v", el, err)
		}
		if err := backendtest.Release(ctx, ss, el, token); err != nil {
			t.Fatalf("%s: Delete of an older version's node: %v", el, err)
		}
		if got, err := s.Get(ctx, el); err != nil || got.Exists() {
			t.Fatalf("%s: Get after Delete = %+v, %v", el, got, err)
		}
	}
}

// TestKnownNodeSkipsTheRead: a session's Delete of a node it made itself,
// and its first Proclaim, go out as one multi, without reading the node
// first; a Delete after a Proclaim reads first (see known). Once another
// writer changed the node, the guard fails and they read it again, and
// still act on it while it is the session's.
func TestKnownNodeSkipsTheRead(t *testing.T) {
	s, raw, tick := epochStore(t, "/leasehold-known-")
	var reads int
	testHookRead = func() { reads++ }
	t.Cleanup(func() { testHookRead = func() {} })
	ctx := testCtx(t)
	ss := newTestSession(t, s, tick)
	for _, c := range []struct {
		changed, proclaim bool
		reads             int
	}{{false, false, 0}, {false, true, 1}, {true, false, 1}, {true, true, 2}} {
		reads = 0
		el := fmt.Sprintf("known/changed-%v-proclaim-%v", c.changed, c.proclaim)
		rec, err := ss.Create(ctx, el, []byte("a"))
		if err != nil {
			t.Fatal(err)
		}
		if c.changed { // not through the session: its versions are stale now
			if _, err := raw.Set(s.leaderPath(el), []byte("x"), -1); err != nil {
				t.Fatal(err)
			}
		}
		if c.proclaim {
			if _, err := ss.Proclaim(ctx, el, rec.Token, []byte("b")); err != nil {
				t.Fatalf("%+v: Proclaim: %v", c, err)
			}
		}
		if err := backendtest.Release(ctx, ss, el, rec.Token); err != nil {
			t.Fatalf("%+v: Delete: %v", c, err)
		}
		if reads != c.reads {
			t.Errorf("%+v: %d reads of the node by Proclaim and Delete, want %d", c, reads, c.reads)
		}
		if got, err := s.Get(ctx, el); err != nil || got.Exists() {
			t.Fatalf("%+v: Get after Delete = %+v, %v", c, got, err)
		}
	}
}

// epochStore returns a Store on a fresh prefix (removed after the test),
// a raw go-zookeeper connection of its own, closed after the test, and
// the servers' tick time.
func epochStore(t *testing.T, prefix string) (*store, *zk.Conn, time.Duration) {
	t.Helper()
	servers, tick := testServers(t)
	prefix = uniqueName(prefix)
	t.Cleanup(func() { removeTree(t, servers, nil, prefix) })
	s := newStore(t, servers, Options{TickTime: tick, Prefix: prefix})
	raw, _, err := zk.Connect(servers, 4*time.Second, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	return s, raw, tick
}
