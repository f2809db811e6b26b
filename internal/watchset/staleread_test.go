package watchset_test

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/watchset"
)

// gatedSource is a Source like memSource (its stream tells only what the
// test sends; its facts carry no revision, as ZooKeeper's), whose Read
// takes its values first and then, if the test queued a gate, waits for
// it: a Read made before a change and slow to come back. A Read takes its
// gate before it tells it began, so gates go to Reads in the order the
// test sees them begin.
type gatedSource struct {
	events  chan watchset.Batch
	gates   chan chan struct{} // one per Read to hold, in the order they begin
	started chan struct{}      // one value per Read begun
	mu      sync.Mutex
	values  map[string]string // by election; "" is absent
}

type gatedStream struct{ src *gatedSource }

func (src *gatedSource) Open(context.Context) watchset.Stream[watchset.Batch] {
	src.events <- watchset.Batch{Position: math.MaxUint64}
	return gatedStream{src}
}

func (src *gatedSource) set(el, v string) {
	src.mu.Lock()
	defer src.mu.Unlock()
	src.values[el] = v
}

func (st gatedStream) Events() <-chan watchset.Batch                 { return st.src.events }
func (st gatedStream) Next(b watchset.Batch, ok bool) watchset.Batch { return b }
func (st gatedStream) Want(bool)                                     {}
func (st gatedStream) Close()                                        {}
func (st gatedStream) Readers() int                                  { return 2 }

func (st gatedStream) Read(ctx context.Context, reqs []watchset.Request) watchset.Batch {
	src := st.src
	var b watchset.Batch
	src.mu.Lock()
	for _, r := range reqs {
		b.Facts = append(b.Facts, watchset.Fact{What: watchset.LeaderState, Election: r.Known.Election,
			Revision: math.MaxUint64, Record: valueRecord(r.Known.Election, src.values[r.Known.Election])})
	}
	src.mu.Unlock()
	var gate chan struct{}
	select { // before started: the test's next Read must not take this one's gate
	case gate = <-src.gates:
	default:
	}
	src.started <- struct{}{}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
		}
	}
	return b
}

// valueRecord is the key of election el holding value v ("": absent).
func valueRecord(el, v string) backends.Record {
	if v == "" {
		return backends.Record{Election: el}
	}
	return backends.Record{Election: el, Owner: "o", Token: 1, Value: []byte(v)}
}

// TestReadAnswersItsRequestsOnly: a Read tells the store as it was when
// it was made, so its facts answer only the requests it read. A request
// made since, knowing a later state, is not answered with the Read's
// older one, even if the Read's facts carry no revision (ZooKeeper's): it
// waits for a change from the state it knows. (Before, a slow Read of an
// earlier request answered it with that older state: an observer went
// back to a value it had moved past, and on a holder's wait the core took
// its key for lost.)
func TestReadAnswersItsRequestsOnly(t *testing.T) {
	src := &gatedSource{events: make(chan watchset.Batch, 64), gates: make(chan chan struct{}, 4),
		started: make(chan struct{}, 64), values: map[string]string{"a": "v0"}}
	ch := make(chan backends.Change, 8)
	set := watchset.New[watchset.Batch]("test", src, func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })
	reread := func() {
		src.events <- watchset.Batch{Facts: []watchset.Fact{{What: watchset.Reread, Election: "a",
			Kind: backends.WatchKey, Revision: math.MaxUint64}}}
	}
	began := func() {
		t.Helper()
		select {
		case <-src.started:
		case c := <-ch:
			t.Fatalf("answer %+v before the Read began", c)
		case <-time.After(10 * time.Second):
			t.Fatal("no Read began within 10s")
		}
	}

	slow := make(chan struct{})
	src.gates <- slow
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: valueRecord("a", "v0")})
	began() // the slow Read: it took v0, and waits

	src.set("a", "v1")
	reread() // a second Read of the same request, which takes v1 and answers it
	if c := nextOf(t, ch); c.Tag != 1 || string(c.Record.Value) != "v1" {
		t.Fatalf("answer %+v, want tag 1 with v1", c)
	}
	began() // the second Read's

	// The reader waits from v1 now; its request's own Read is held too,
	// so the Set has no Read to spare until the slow one is taken.
	held := make(chan struct{})
	t.Cleanup(func() { close(held) })
	src.gates <- held
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: valueRecord("a", "v1")})
	began()
	src.set("a", "v2")
	reread()
	close(slow) // its v0 is no news to tag 2, which knows v1
	if c := nextOf(t, ch); c.Tag != 2 || string(c.Record.Value) != "v2" {
		t.Fatalf("answer %+v, want tag 2 with v2: a Read made before v1 answered a request that knows v1", c)
	}
}
