package zookeeper

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// TestPointerData: a pointer's data parses back; the empty pointer is no
// data; a lead entry's name is no queue entry.
func TestPointerData(t *testing.T) {
	for _, p := range []pointer{
		{owner: "1a2b", lead: "/p/~queue/e/~1a2b-0000000003", value: []byte("v\nwith lines")},
		{owner: "1a2b", lead: "/p/~roster/e/1a2b", token: 42},
		{owner: "1a2b", lead: "/p/~queue/e/~1a2b-L", value: []byte{}},
	} {
		got, err := parsePointer(p.encode())
		if err != nil || got.owner != p.owner || got.lead != p.lead || got.token != p.token || string(got.value) != string(p.value) {
			t.Errorf("parsePointer(encode(%+v)) = %+v, %v", p, got, err)
		}
	}
	if data := (pointer{}).encode(); len(data) != 0 {
		t.Errorf("the empty pointer encodes as %q, want nothing", data)
	}
	if _, err := parsePointer([]byte("no lines")); err == nil {
		t.Error("parsePointer of data without lines: nil error")
	}
	if _, _, ok := parseEntry(entryPrefix("1a2b") + "L"); ok {
		t.Error("a lead entry parses as a queue entry: Ahead would list it")
	}
}

// TestPointerLayout: a free election's Create is one multi that deletes
// the free child and leaves the pointer naming the session's lead entry;
// a release empties it and makes the free child again, and the token of
// the next Create is the pointer's mzxid, above the last.
func TestPointerLayout(t *testing.T) {
	servers, tick := testServers(t)
	s := newStore(t, servers, Options{TickTime: tick, Prefix: uniqueName("/leasehold-ptr-")})
	ctx := testCtx(t)
	bs, err := s.NewSession(ctx, max(2*time.Second, 2*tick))
	if err != nil {
		t.Fatal(err)
	}
	ss := bs.(*session)
	conn, path := ss.l.conn, s.leaderPath("el")
	rec, err := ss.Create(ctx, "el", []byte("v1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ss.End(ctx, backends.End{Election: "el", Token: rec.Token}); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := conn.Exists(path + "/" + freeName); err != nil || !ok {
		t.Fatalf("free child after a release: %v, %v; want it there", ok, err)
	}
	again, err := ss.Create(ctx, "el", []byte("v2"))
	if err != nil {
		t.Fatal(err)
	}
	data, st, err := conn.Get(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parsePointer(data)
	if err != nil || p.owner != ss.ID() || string(p.value) != "v2" || uint64(st.Mzxid) != again.Token || again.Token <= rec.Token {
		t.Fatalf("pointer after a Create = %+v (mzxid %d), %v; want owner %s, v2, token %d above %d", p, st.Mzxid, err, ss.ID(), again.Token, rec.Token)
	}
	if ok, _, _ := conn.Exists(path + "/" + freeName); ok {
		t.Fatal("free child still there while the pointer names a holder")
	}
	if ok, _, _ := conn.Exists(p.lead); !ok {
		t.Fatalf("lead node %s missing", p.lead)
	}
}

// TestDequeueLeavesLead: Dequeue of an entry that the pointer names (a
// Create by a session in line took the key by its entry) leaves it, so
// the term stays; once the holder's End deleted it, a Dequeue finds none.
// Another session's entry in line is deleted.
func TestDequeueLeavesLead(t *testing.T) {
	servers, tick := testServers(t)
	s := newStore(t, servers, Options{TickTime: tick, Prefix: uniqueName("/leasehold-deq-")})
	ctx := testCtx(t)
	a, err := s.NewSession(ctx, max(2*time.Second, 2*tick))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.NewSession(ctx, max(2*time.Second, 2*tick))
	if err != nil {
		t.Fatal(err)
	}
	entry, err := a.Enqueue(ctx, "el")
	if err != nil {
		t.Fatal(err)
	}
	other, err := b.Enqueue(ctx, "el")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := a.Create(ctx, "el", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []backends.Record{entry, other} {
		if err := s.Dequeue(ctx, e); err != nil {
			t.Fatalf("Dequeue(%+v): %v", e, err)
		}
	}
	if got, err := s.Get(ctx, "el"); err != nil || got.Token != rec.Token || got.Owner != a.ID() {
		t.Fatalf("Get after the holder's entry was dequeued = %+v, %v; want %+v", got, err, rec)
	}
	if ahead, err := s.Ahead(ctx, "el", other.Token+1); err != nil || ahead.Token != entry.Token {
		t.Fatalf("Ahead = %+v, %v; want the holder's entry %d alone", ahead, err, entry.Token)
	}
	if _, err := a.End(ctx, backends.End{Election: "el", Token: rec.Token}); err != nil {
		t.Fatal(err)
	}
	path, _ := s.entryPath(entry)
	if _, _, err := a.(*session).l.conn.Get(path); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("the holder's entry after its End: %v, want it deleted", err)
	}
}

// TestLayoutOneRefused: a prefix whose layout marker says 1 (ephemeral
// leader nodes, which a version-1 elector would delete in place of a
// pointer) fails NewSession and Get with ErrLayout.
func TestLayoutOneRefused(t *testing.T) {
	servers, tick := testServers(t)
	prefix := uniqueName("/leasehold-v1-")
	c, _, err := zk.Connect(servers, 4*time.Second, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Create(prefix, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(prefix+"/"+backends.LayoutSegment, []byte("1"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	s := newStore(t, servers, Options{TickTime: tick, Prefix: prefix})
	if _, err := s.Get(ctx, "el"); !errors.Is(err, backends.ErrLayout) {
		t.Fatalf("Get on a layout-1 prefix: %v, want ErrLayout", err)
	}
	if ss, err := s.NewSession(ctx, max(2*time.Second, 2*tick)); !errors.Is(err, backends.ErrLayout) {
		if ss != nil {
			_ = ss.Close(ctx)
		}
		t.Fatalf("NewSession on a layout-1 prefix: %v, want ErrLayout", err)
	}
}

// heldByA returns a Store under a new prefix starting with prefix, its
// sessions a and b, and election "el"'s key as a's Create made it, which
// the Store has read since (s.Get saw a's lead node alive).
func heldByA(t *testing.T, prefix string) (*store, backends.Session, backends.Session, backends.Record) {
	t.Helper()
	servers, tick := testServers(t)
	s := newStore(t, servers, Options{TickTime: tick, Prefix: uniqueName(prefix)})
	ctx := testCtx(t)
	ttl := max(2*time.Second, 2*tick)
	a, err := s.NewSession(ctx, ttl)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.NewSession(ctx, ttl)
	if err != nil {
		t.Fatal(err)
	}
	held, err := a.Create(ctx, "el", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "el"); err != nil {
		t.Fatal(err)
	}
	return s, a, b, held
}

// TestCreateTakesDeadLead: a Create by a Store that last saw the pointer
// naming a live holder's node fails with ErrKeyExists and leaves the term;
// once that holder's session is over, the same Create takes the pointer
// at the version seen, with a greater token.
func TestCreateTakesDeadLead(t *testing.T) {
	s, a, b, held := heldByA(t, "/leasehold-dead-")
	ctx := testCtx(t)
	if got, err := b.Create(ctx, "el", []byte("b")); !errors.Is(err, backends.ErrKeyExists) || got.Token != held.Token {
		t.Fatalf("Create while a holds = %+v, %v; want ErrKeyExists and a's token %d", got, err, held.Token)
	}
	if got, err := s.Get(ctx, "el"); err != nil || got.Differs(held) {
		t.Fatalf("Get after a refused Create = %+v, %v; want %+v", got, err, held)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := b.Create(ctx, "el", []byte("b"))
	if err != nil || got.Owner != b.ID() || got.Token <= held.Token {
		t.Fatalf("Create after the holder's session closed = %+v, %v; want b's, token above %d", got, err, held.Token)
	}
}

// TestCreateReadsHeldKeyFirst: a Create on a key the Store saw held by
// another session's live node sends no multi (it would fail, and cost a
// write) and fails with ErrKeyExists and the holder's token; once the
// Store saw the holder's lead node deleted (a WatchKey request's watch),
// a Create takes the key in one multi, with no read first.
func TestCreateReadsHeldKeyFirst(t *testing.T) {
	s, a, b, held := heldByA(t, "/leasehold-held-")
	ctx := testCtx(t)
	var multis, reads atomic.Int32
	setHook(t, &testHookTake, func(struct{}) { multis.Add(1) })
	setHook(t, &testHookPointerRead, func(struct{}) { reads.Add(1) })
	got, err := b.Create(ctx, "el", []byte("b"))
	if !errors.Is(err, backends.ErrKeyExists) || got.Token != held.Token {
		t.Fatalf("Create while a holds = %+v, %v; want ErrKeyExists and a's token %d", got, err, held.Token)
	}
	if n := multis.Load(); n != 0 {
		t.Fatalf("Create on a key seen held sent %d multis, want 0 (a read first)", n)
	}
	watching := hookWatching(t)
	w, changes := watchOn(t, s)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: got})
	awaitWatching(t, watching, "el")
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if c := nextChange(t, changes); c.Err != nil || c.Record.Exists() {
		t.Fatalf("WatchKey answer after the holder's session closed = %+v, want absent", c)
	}
	multis.Store(0)
	reads.Store(0)
	got, err = b.Create(ctx, "el", []byte("b"))
	if err != nil || got.Owner != b.ID() || got.Token <= held.Token {
		t.Fatalf("Create after the holder's lead node went = %+v, %v; want b's, token above %d", got, err, held.Token)
	}
	if m, r := multis.Load(), reads.Load(); m != 1 || r != 0 {
		t.Fatalf("Create after the holder's lead node went: %d multis and %d key reads, want 1 and 0", m, r)
	}
}

// TestWaitFromAbsentAfterCrash: once a holder's session is over, its key
// reads absent though the pointer still names its node; a WatchKey
// request from that absent state waits (the pointer naming the dead node
// is no change: the set's read finds none and leaves its watches), and is
// answered with the next holder.
func TestWaitFromAbsentAfterCrash(t *testing.T) {
	servers, tick := testServers(t)
	s := newStore(t, servers, Options{TickTime: tick, Prefix: uniqueName("/leasehold-gone-")})
	ctx := testCtx(t)
	ttl := max(2*time.Second, 2*tick)
	a, err := s.NewSession(ctx, ttl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Create(ctx, "el", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	absent, err := s.Get(ctx, "el")
	if err != nil || absent.Exists() {
		t.Fatalf("Get after the holder's session closed = %+v, %v; want absent", absent, err)
	}
	watching := hookWatching(t)
	w, changes := watchOn(t, s)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: absent})
	awaitWatching(t, watching, "el") // not answered: it watches
	b, err := s.NewSession(ctx, ttl)
	if err != nil {
		t.Fatal(err)
	}
	held, err := b.Create(ctx, "el", []byte("b"))
	if err != nil {
		t.Fatal(err)
	}
	if c := nextChange(t, changes); c.Err != nil || c.Record.Token != held.Token || c.Record.Owner != b.ID() {
		t.Fatalf("WatchKey answer = %+v, want the new holder %+v", c, held)
	}
}

// TestCreateAfterOwnRelease: a Store's release leaves it knowing the
// pointer empty, but a waiter on the key takes it at once. A Create of
// the released session then reads first, with no sync (its connection
// saw the release), and fails with ErrKeyExists and the taker's token,
// with no multi (it would fail: a write of the ensemble for nothing).
// Alone after its own release, a Create takes the key in one multi at
// the version it read, still with no sync.
func TestCreateAfterOwnRelease(t *testing.T) {
	s, a, _, held := heldByA(t, "/leasehold-freed-")
	ctx := testCtx(t)
	other := newStore(t, s.servers, Options{TickTime: s.opts.TickTime, Prefix: s.opts.Prefix})
	c, err := other.NewSession(ctx, a.TTL())
	if err != nil {
		t.Fatal(err)
	}
	release := func(ss backends.Session, rec backends.Record) {
		t.Helper()
		if _, err := ss.End(ctx, backends.End{Election: "el", Token: rec.Token}); err != nil {
			t.Fatal(err)
		}
	}
	release(a, held)
	taken, err := c.Create(ctx, "el", []byte("c"))
	if err != nil {
		t.Fatal(err)
	}
	var multis, syncs atomic.Int32
	setHook(t, &testHookTake, func(struct{}) { multis.Add(1) })
	setHook(t, &testHookSync, func(string) { syncs.Add(1) })
	got, err := a.Create(ctx, "el", []byte("a"))
	if !errors.Is(err, backends.ErrKeyExists) || got.Token != taken.Token {
		t.Fatalf("Create after its own release, the key taken since = %+v, %v; want ErrKeyExists and token %d", got, err, taken.Token)
	}
	if m, n := multis.Load(), syncs.Load(); m != 0 || n != 0 {
		t.Fatalf("Create after its own release, the key taken since: %d multis and %d syncs, want 0 and 0", m, n)
	}
	release(c, taken)
	again, err := a.Create(ctx, "el", []byte("a"))
	if err != nil || again.Owner != a.ID() || again.Token <= taken.Token {
		t.Fatalf("Create on the key released since = %+v, %v; want a's, token above %d", again, err, taken.Token)
	}
	release(a, again)
	multis.Store(0)
	syncs.Store(0)
	alone, err := a.Create(ctx, "el", []byte("a"))
	if err != nil || alone.Owner != a.ID() || alone.Token <= again.Token {
		t.Fatalf("Create alone after its own release = %+v, %v; want a's, token above %d", alone, err, again.Token)
	}
	if m, n := multis.Load(), syncs.Load(); m != 1 || n != 0 {
		t.Fatalf("Create alone after its own release: %d multis and %d syncs, want 1 and 0", m, n)
	}
}
