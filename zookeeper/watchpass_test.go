package zookeeper

import (
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// hookReads returns a channel that tells, for each read of a WatchSet
// from now until t ends, whether it synced first.
func hookReads(t *testing.T) <-chan bool {
	ch := make(chan bool, 1<<10)
	testHookRead = func(synced bool) { ch <- synced }
	t.Cleanup(func() { testHookRead = func(bool) {} })
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
