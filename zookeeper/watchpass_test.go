package zookeeper

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// setHook makes f the hook h until t ends.
func setHook[T any](t testing.TB, h *testHook[T], f func(T)) {
	h.f.Store(&f)
	t.Cleanup(func() { h.f.Store(nil) })
}

// hookReads returns a channel that tells, for each read of a WatchSet
// from now until t ends, whether it synced first.
func hookReads(t *testing.T) <-chan bool {
	ch := make(chan bool, 1<<10)
	setHook(t, &testHookRead, func(synced bool) { ch <- synced })
	return ch
}

// TestWatchSetPassNoSync: a pass to a session of the set's Store waiting
// in line answers the WatchEntry request on the entry ahead of the
// target's with the key passed, on the notification of the target's own
// entry, by reads that make no sync: the hand-off's fast path.
func TestWatchSetPassNoSync(t *testing.T) {
	f := newWatchFixture(t)
	el := uniqueName("ws-pass-")
	held := f.create(t, el)
	ahead, err := f.pss.Enqueue(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := f.ss.Enqueue(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	join(t, f.s, f.ss, el, "target")
	watching := hookWatching(t)
	reads := hookReads(t)
	w, ch := watchOn(t, f.s)
	w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: ahead})
	awaitWatching(t, watching, el)
	for len(reads) > 0 {
		<-reads // the first read's
	}
	passed, err := f.pss.End(f.ctx, backends.End{Election: el, Token: held.Token,
		To: &backends.Target{Session: f.ss.ID(), Entry: mine.Token, Value: []byte("target")}})
	if err != nil {
		t.Fatal(err)
	}
	c := nextChange(t, ch)
	if c.Tag != 1 || c.Err != nil || c.Record.Owner != f.ss.ID() || c.Record.Token != passed.Token {
		t.Fatalf("answer %+v, want tag 1 with the key passed, %+v", c, passed)
	}
	if len(reads) == 0 {
		t.Fatal("no read after the pass")
	}
	for len(reads) > 0 {
		if <-reads {
			t.Fatal("a read after the pass synced first")
		}
	}
}

// TestWatchSetPassWithGone: a WatchEntry request whose entry goes in the
// write that passes the key to the session of this Store's entry behind
// it is answered with the key passed, even when that write's change of
// the target's own entry was read by another read: the entry's deletion,
// read on its own, must not hide the pass, or the target would not lead
// on it but look for the entry ahead of it again (Ahead), then read the
// key. The write here is End's multi without the data change of the
// target's entry, whose notification another read takes in a hand-off
// whose two notifications come apart.
func TestWatchSetPassWithGone(t *testing.T) {
	f := newWatchFixture(t)
	el := uniqueName("ws-passgone-")
	ahead, err := f.pss.Enqueue(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	held := f.create(t, el)
	mine, err := f.ss.Enqueue(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	watching := hookWatching(t)
	w, ch := watchOn(t, f.s)
	w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: ahead})
	awaitWatching(t, watching, el)
	minePath, _ := f.s.entryPath(mine)
	aheadPath, _ := f.s.entryPath(ahead)
	ps, ok := f.peer.ptrs.get(el)
	if !ok || !ps.holds(f.pss.ID(), held.Token) {
		t.Fatalf("the peer's pointer cache has %+v, want the key it holds, %+v", ps, held)
	}
	to := pointer{owner: f.ss.ID(), lead: minePath, value: []byte("target")}
	st, err := multiStat(f.pss.(*session).l.conn, 0,
		&zk.SetDataRequest{Path: f.s.leaderPath(el), Data: to.encode(), Version: ps.st.Version},
		&zk.DeleteRequest{Path: aheadPath, Version: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := nextChange(t, ch)
	if c.Tag != 1 || c.Err != nil || c.Record.Owner != f.ss.ID() || c.Record.Token != uint64(st.Mzxid) {
		t.Fatalf("answer %+v, want tag 1 with the key passed to %s at token %d", c, f.ss.ID(), st.Mzxid)
	}
}
