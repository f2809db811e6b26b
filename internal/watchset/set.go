// Package watchset is the watch engine of the adapters: the one
// implementation of backends.WatchSet. An adapter gives its store's
// primitive, a Source: a change stream over its prefix, with a read. The
// Set keeps the requests (one per election and kind), opens the stream
// when a request waits, covers with reads the requests the stream cannot
// answer alone, matches the stream's Facts with the requests, and
// delivers the answers from its one goroutine, as backends.Driver.Watch states.
// A store with no change stream (ZooKeeper) gives its watches'
// notifications as the stream: each tells which request to read again
// (Reread), and each read sets the request's watches.
//
// A Set's goroutine runs from New to Close. Besides it, a goroutine runs
// each Stream's Read in flight, on at most readBatch requests: one at a
// time, or as many as the Stream's Readers tells.
package watchset

import (
	"context"
	"sync"

	"github.com/leasehold/leasehold/backends"
)

// readBatch is the most requests in one Read.
const readBatch = 32

// maxRosterSeen bounds Set.rosterSeen, which elections that come and go
// would otherwise grow for as long as a stream lasts.
const maxRosterSeen = 4096

var _ backends.WatchSet = (*Set[struct{}])(nil)

// Set is a backends.WatchSet served by one Source; see New. It is
// safe for concurrent use. The fields below mu are guarded by it.
type Set[E any] struct {
	src     Source[E]
	deliver func(backends.Change)
	ctx     context.Context // ends with Close
	cancel  context.CancelFunc
	kick    chan struct{} // a request was made
	done    chan struct{} // closed when run returns
	reads   chan readDone

	mu      sync.Mutex
	closed  bool
	reqs    map[string]*Request // Wait and Gone, by election
	rosters map[string]*Request // Roster, by election
	fresh   []*Request          // made since run last looked
	out     []backends.Change   // answers to deliver
	// passWoke is, by election, the revision of the last pass a Gone was
	// answered with: each pass wakes a Set's line once.
	passWoke map[string]uint64
	// rosterSeen is, by election, the revision of the last RosterWrite
	// since start, where the stream began or rosterSeen was last emptied.
	rosterSeen map[string]uint64
	start      uint64

	stream  Stream[E] // nil while none is open
	tracker Tracker   // stream, if it is one
	seq     uint64    // the last Request.id given
	// toTrack are requests to watch, and untracks the ids of requests to
	// watch no more, on tracker (sync).
	toTrack  []*Request
	untracks []untrack
	wanted   bool       // what the stream was last told (Stream.Want)
	writes   bool       // the stream tells RosterWrites
	pos      uint64     // see Batch.Position; 0 until the stream tells
	toRead   []*Request // whose gap a read must cover
	reading  int        // Reads in flight
	readers  int        // the most Reads in flight: the stream's Readers
}

// readDone is a Read's outcome, with the requests it read.
type readDone struct {
	reqs  []*Request
	batch Batch
}

// New returns a Set whose answers go to deliver, and starts its
// goroutine; the stream opens with the first request. deliver is called
// from that goroutine, one Change at a time, with no lock held: it may
// call the Set's methods but Close. A nil deliver panics, with a message
// that names the adapter (what).
func New[E any](what string, src Source[E], deliver func(backends.Change)) *Set[E] {
	if deliver == nil {
		panic(what + ": Watch: deliver is nil; pass the function that takes the answers")
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &Set[E]{src: src, deliver: deliver, ctx: ctx, cancel: cancel,
		kick: make(chan struct{}, 1), done: make(chan struct{}), reads: make(chan readDone, 1),
		reqs: map[string]*Request{}, rosters: map[string]*Request{},
		passWoke: map[string]uint64{}, rosterSeen: map[string]uint64{}}
	go w.run()
	return w
}

// Wait asks for what req.Kind names (see backends.WatchSet).
func (w *Set[E]) Wait(req backends.WatchRequest) {
	w.ask(&Request{Kind: req.Kind, Tag: req.Tag, Known: req.Known, Digest: req.Digest, Mine: req.Mine})
}

// ask registers r, replacing its election's request of its kind, and
// wakes run.
func (w *Set[E]) ask(r *Request) {
	r.seen = r.Known.Revision
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.seq++
	r.id = w.seq
	if old := w.kind(r.Kind)[r.Known.Election]; old != nil {
		w.dropped(old, false)
	}
	w.kind(r.Kind)[r.Known.Election] = r
	w.fresh = append(w.fresh, r)
	w.kickRun()
}

// Stop withdraws election's request of kind, if any: its roster request
// for Roster, its Wait or Gone request otherwise.
func (w *Set[E]) Stop(election string, kind Kind) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r := w.kind(kind)[election]; r != nil {
		w.dropped(r, false)
		delete(w.kind(kind), election)
		w.kickRun() // its watch ends (sync)
	}
}

// Close ends the stream and every request, and returns once no answer can
// be delivered any more. It returns nil.
func (w *Set[E]) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cancel()
	<-w.done
	return nil
}

// Answer delivers c, an answer the adapter found by itself, as the Set
// delivers its own: from its goroutine, in turn, and not after Close.
func (w *Set[E]) Answer(c backends.Change) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.out = append(w.out, c)
	w.kickRun()
}

// kickRun wakes run, if it does not have a kick pending.
func (w *Set[E]) kickRun() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// kind returns the requests of kind k, by election.
func (w *Set[E]) kind(k Kind) map[string]*Request {
	if k == Roster {
		return w.rosters
	}
	return w.reqs
}

// current reports whether r is still its election's request; w.mu is
// held.
func (w *Set[E]) current(r *Request) bool { return w.kind(r.Kind)[r.Known.Election] == r }

// answer ends r with rec or err, to be delivered after w.mu is released;
// w.mu is held.
func (w *Set[E]) answer(r *Request, rec backends.Record, err error) {
	el := r.Known.Election
	w.dropped(r, err == nil)
	delete(w.kind(r.Kind), el)
	c := backends.Change{Election: el, Tag: r.Tag, Record: rec, Err: err}
	if r.Kind == Roster {
		c.Record, c.Roster = backends.Record{Election: el}, true
	}
	w.out = append(w.out, c)
}

// untrack is a request whose watches end at the next sync.
type untrack struct {
	id       uint64
	answered bool
}

// dropped notes that r is no longer its election's request, answered or
// not: its watches, if the stream tracks it, end at the next sync. w.mu
// is held.
func (w *Set[E]) dropped(r *Request, answered bool) {
	if r.tracked {
		r.tracked = false
		w.untracks = append(w.untracks, untrack{r.id, answered})
	}
}
