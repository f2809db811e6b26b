package watchset

import (
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// TestTakeBatchDropsAnswered: a request answered, withdrawn or replaced
// while it waited in line for a read is not read; the others are, in
// line order, at most readBatch at a time.
func TestTakeBatchDropsAnswered(t *testing.T) {
	w := bare()
	wait := func(el string, tag uint64) {
		w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: tag, Known: backends.Record{Election: el, Revision: 1}})
	}
	for i, el := range []string{"answered", "stopped", "replaced", "kept"} {
		wait(el, uint64(i+1))
	}
	w.onBatch(Batch{Position: 8})
	w.cover()
	if len(w.toRead) != 4 {
		t.Fatalf("requests to read = %d, want 4", len(w.toRead))
	}
	w.answer(w.reqs["answered"], backends.Record{Election: "answered"}, nil)
	w.Stop("stopped", Wait)
	wait("replaced", 9) // its new request is fresh: the next cover looks at it
	got := w.takeBatch()
	if len(got) != 1 || got[0].Known.Election != "kept" || len(w.toRead) != 0 {
		t.Fatalf("batch = %v (left %d), want kept's request alone", got, len(w.toRead))
	}
	for i := range readBatch + 3 {
		wait(string(rune('a'+i%26))+string(rune('a'+i/26)), uint64(100+i))
	}
	w.cover() // those, and replaced's new request
	if got := w.takeBatch(); len(got) != readBatch || len(w.toRead) != 4 || got[0].Known.Election != "replaced" {
		t.Fatalf("batch of %d (left %d), want %d from replaced's new request on (left 4)", len(got), len(w.toRead), readBatch)
	}
}
