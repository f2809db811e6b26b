package watchset_test

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/watchset"
)

// memSource is a Source whose stream tells only what the test sends on
// events, as a ZooKeeper stream does (a watch fired: read again), and
// whose Read reads values, counting the Reads in flight.
type memSource struct {
	events  chan watchset.Batch
	readers int
	mu      sync.Mutex
	values  map[string]string // by election; "" is absent
	reads   int
	flying  int // Reads in flight
	peak    int // the most Reads in flight at once
	gate    chan struct{}
	started chan struct{} // one value per Read begun
	read    chan string   // each request's election, once a Read has read it
}

type memStream struct{ src *memSource }

func newMemSource(readers int) *memSource {
	return &memSource{events: make(chan watchset.Batch, 64), readers: readers, values: map[string]string{},
		started: make(chan struct{}, 64), read: make(chan string, 1024)}
}

func (src *memSource) Open(context.Context) watchset.Stream[watchset.Batch] {
	src.events <- watchset.Batch{Position: math.MaxUint64}
	return memStream{src}
}

func (src *memSource) set(el, v string) {
	src.mu.Lock()
	defer src.mu.Unlock()
	src.values[el] = v
}

func (st memStream) Events() <-chan watchset.Batch                 { return st.src.events }
func (st memStream) Next(b watchset.Batch, ok bool) watchset.Batch { return b }
func (st memStream) Want(bool)                                     {}
func (st memStream) Close()                                        {}
func (st memStream) Readers() int                                  { return st.src.readers }

func (st memStream) Read(ctx context.Context, reqs []watchset.Request) watchset.Batch {
	src := st.src
	src.mu.Lock()
	src.reads++
	src.flying++
	src.peak = max(src.peak, src.flying)
	gate := src.gate
	src.mu.Unlock()
	src.started <- struct{}{}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
		}
	}
	src.mu.Lock()
	src.flying--
	var b watchset.Batch
	for _, r := range reqs {
		el := r.Known.Election
		rec := backends.Record{Election: el}
		if v := src.values[el]; v != "" {
			rec.Owner, rec.Token, rec.Value = "o", 1, []byte(v)
		}
		b.Facts = append(b.Facts, watchset.Fact{What: watchset.LeaderState, Election: el, Revision: math.MaxUint64, Record: rec})
	}
	src.mu.Unlock()
	for _, r := range reqs {
		select {
		case src.read <- r.Known.Election:
		default: // a test that does not look
		}
	}
	return b
}

// awaitRead waits until a Read has read the request of each of els.
func (src *memSource) awaitRead(t *testing.T, els ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, el := range els {
		want[el] = true
	}
	deadline := time.After(10 * time.Second)
	for len(want) > 0 {
		select {
		case el := <-src.read:
			delete(want, el)
		case <-deadline:
			t.Fatalf("no Read of %v within 10s", want)
		}
	}
}

func (src *memSource) count() (reads, peak int) {
	src.mu.Lock()
	defer src.mu.Unlock()
	return src.reads, src.peak
}

// nextOf returns the next Change on ch, failing t after 10s.
func nextOf(t *testing.T, ch <-chan backends.Change) backends.Change {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10s")
	}
	return backends.Change{}
}

// TestReread: a Reread reads its election's request of its kind again,
// which is then answered on what the read finds; one for an election
// with no request, or of another kind, reads nothing.
func TestReread(t *testing.T) {
	src := newMemSource(1)
	ch := make(chan backends.Change, 8)
	set := watchset.New[watchset.Batch]("test", src, func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: backends.Record{Election: "a"}})
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: backends.Record{Election: "probe"}})
	src.awaitRead(t, "a", "probe") // the first reads, which find both absent
	src.set("a", "v")
	src.events <- watchset.Batch{Facts: []watchset.Fact{
		{What: watchset.Reread, Election: "none", Revision: math.MaxUint64},
		{What: watchset.Reread, Election: "a", Kind: backends.WatchRoster, Revision: math.MaxUint64},
	}}
	src.set("probe", "p")
	src.events <- watchset.Batch{Facts: []watchset.Fact{{What: watchset.Reread, Election: "probe", Revision: math.MaxUint64}}}
	if c := nextOf(t, ch); c.Tag != 2 || string(c.Record.Value) != "p" {
		t.Fatalf("first answer %+v, want the probe's (tag 2): a's Reread was of the wrong kind", c)
	}
	src.events <- watchset.Batch{Facts: []watchset.Fact{{What: watchset.Reread, Election: "a", Kind: backends.WatchKey, Revision: math.MaxUint64}}}
	if c := nextOf(t, ch); c.Tag != 1 || string(c.Record.Value) != "v" {
		t.Fatalf("answer %+v, want a's (tag 1) with value v", c)
	}
}

// TestReaders: a Stream that is a Readers has that many Reads in flight
// at once, and no more.
func TestReaders(t *testing.T) {
	const readers = 3
	src := newMemSource(readers)
	src.gate = make(chan struct{})
	set := watchset.New[watchset.Batch]("test", src, func(backends.Change) {})
	t.Cleanup(func() { _ = set.Close() })
	for i := range 10 * 32 { // ten Reads' worth
		set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Known: backends.Record{Election: fmt.Sprint(i)}})
	}
	deadline := time.After(10 * time.Second)
	awaitReads := func(n int) {
		for range n {
			select {
			case <-src.started:
			case <-deadline:
				t.Fatalf("fewer than %d Reads began", n)
			}
		}
	}
	awaitReads(readers) // all held at the gate
	close(src.gate)
	awaitReads(10 - readers)
	if _, peak := src.count(); peak != readers {
		t.Fatalf("at most %d Reads in flight, want %d", peak, readers)
	}
}
