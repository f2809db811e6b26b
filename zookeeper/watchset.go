package zookeeper

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// Watch implements backends.Driver.Watch. The set reads and leaves ZooKeeper
// watches as Wait and WaitGone do, on the Store's reader (see the package
// doc, Watches), and learns of their notifications from go-zookeeper's
// event callback, which gets every notification with its path: the set
// routes it by path to the request that set the watch, so no goroutine
// waits per request. The set runs one goroutine, which calls deliver,
// plus, while it has reads to make, up to 16 that each read a batch of
// up to 32 requests at once, one goroutine per read in flight; a
// request's first read follows a sync, one per batch, sent right ahead
// of the batch's reads.
//
// When the connection of a request's read or watch drops, closes, or its
// session expires, the request is read again, after a sync, on the
// reader of the moment (another session's connection, or the Store's
// own, dialed then): so a request ends in an error only if that read
// fails, with an error wrapping ErrUnavailable (no server answered), or
// ErrPermission if the credentials may not read the node. Store.Close
// closes every set; on a closed Store, Watch returns a closed set.
//
// deliver may call Wait, WaitGone and Stop, but not Close: Close waits
// for a delivery in progress to return. A nil deliver panics.
func (s *store) Watch(deliver func(backends.Change)) backends.WatchSet {
	if deliver == nil {
		panic("zookeeper: Watch: deliver is nil; pass the function that takes the answers")
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watchSet{s: s, deliver: deliver, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1),
		reqs: make(map[string]*watchReq), rosters: make(map[string]*watchReq), paths: make(map[string]*watchReq),
		marked: make(map[string]int64)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		w.closed = true
		cancel()
		return w
	}
	s.sets.Store(ptr(append(slices.Clone(*s.sets.Load()), w)))
	s.goLocked(w.run)
	return w
}

func ptr[T any](v T) *T { return &v }

// Batching of reads: up to maxReaders goroutines read for a set at once,
// each taking up to readBatch requests at a time.
const (
	maxReaders = 16
	readBatch  = 32
)

// watchSet is the Store's backends.WatchSet.
type watchSet struct {
	s       *store
	deliver func(backends.Change)
	ctx     context.Context // ends at Close
	cancel  context.CancelFunc
	wake    chan struct{} // run's signal that out has changes
	turn    sync.Mutex    // held by run while it delivers, and by Close

	mu      sync.Mutex
	closed  bool
	reqs    map[string]*watchReq // by election
	rosters map[string]*watchReq // roster requests, by election (watchroster.go)
	paths   map[string]*watchReq // by node path
	todo    []*watchReq          // to read, oldest first
	out     []backends.Change    // to deliver, oldest first
	readers int                  // reading goroutines running
	// marked holds, by election, the marker a WaitGone was last answered
	// with (its epoch node's mzxid), until a Wait of the election reads
	// the key back or the election's request is stopped: readEntry
	// answers no later request with it (see markSeen).
	marked map[string]int64
}

// watchReq is one request of a set. The small fields sit together at
// the end: a set keeps one or two requests per election an elector
// holds, and padding them a word each put the struct in the next size
// class.
type watchReq struct {
	tag   uint64
	known backends.Record // Wait: the state known; WaitGone: the entry
	path  string          // the node read and watched
	epath string          // Wait: the election's epoch node, watched too while the node exists

	// Under the set's mutex:
	reads uint64          // reads taken so far (see read)
	l     *link           // the link of the read in progress or of the watch
	rec   backends.Record // Wait, watching: the state read, which the watch follows
	markZ int64           // WaitGone: the epoch node's mzxid of the marker read (wokenBy)
	fired zk.EventType    // while reading: an event came for path on l (0: none)
	state reqState
	mark  markState // what the handover marker asks of the next read
	sync  bool      // the next read follows a sync

	// Set when the request is made:
	gone bool // a WaitGone
	// roster marks a roster request (WatchRoster): path is the roster
	// node, and known holds the election and the revision to wait from.
	roster bool
}

// markState is what a request knows of a handover marker (see
// mark).
type markState uint8

const (
	noMark     markState = iota
	epochMoved           // Wait, watching: the epoch node changed, so a marked delete came
	readMark             // Wait: the node went with a marker: read it (markedGone); WaitGone: the entry was nudged: read the marker
)

// reqState is where a request is.
type reqState uint8

const (
	queued   reqState = iota // waits in todo for a read
	reading                  // a reading goroutine has it
	watching                 // its watch is set
)

// waitKey takes a WatchKey request (see Wait).
func (w *watchSet) waitKey(tag uint64, known backends.Record) {
	path, err := w.s.checkedPath(known.Election)
	w.ask(&watchReq{tag: tag, known: known, path: path, epath: w.s.epochPath(known.Election)}, err)
}

// waitGone takes a WatchEntry request (see Wait). An entry with Token 0 (none) is
// gone at once. The entry's node is read with a getData watch, which
// fires on its deletion and on a change of its data (Nudge, or a marked
// delete's nudge): a deletion answers the request with the entry, a
// change after a read of the handover marker, with the absent key and
// its To if the marker names an entry behind this one (see mark),
// else with the entry.
func (w *watchSet) waitGone(tag uint64, entry backends.Record) {
	path, err := w.s.checkedEntry(fmt.Sprintf("queue entry at token %d", entry.Token), entry)
	w.ask(&watchReq{tag: tag, known: entry, path: path, gone: true}, err)
}

// ask takes a request, replacing the election's previous one.
func (w *watchSet) ask(r *watchReq, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.forget(w.kind(r), r.known.Election)
	switch {
	case err != nil:
		w.answer(r, backends.Record{}, fmt.Errorf("zookeeper: watch %q: %w", r.known.Election, err))
	case r.gone && r.path == "":
		w.answer(r, r.known, nil)
	default:
		w.kind(r)[r.known.Election], w.paths[r.path] = r, r
		if r.epath != "" {
			w.paths[r.epath] = r
		}
		r.sync = true
		w.queue(r)
	}
}

// stopKey withdraws election's WatchKey or WatchEntry request (see Stop).
func (w *watchSet) stopKey(election string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.forget(w.reqs, election)
	delete(w.marked, election)
}

// Close implements backends.WatchSet.
func (w *watchSet) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.reqs, w.rosters, w.paths, w.todo, w.out, w.marked = nil, nil, nil, nil, nil, nil
	w.mu.Unlock()
	w.turn.Lock() // a delivery in progress ends; none starts
	w.turn.Unlock()
	w.cancel()
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.sets.Store(ptr(slices.DeleteFunc(slices.Clone(*w.s.sets.Load()), func(v *watchSet) bool { return v == w })))
	return nil
}

// forget drops the election's request in reqs (w.reqs or w.rosters), if
// any; w.mu is held.
func (w *watchSet) forget(reqs map[string]*watchReq, election string) {
	r := reqs[election]
	if r == nil {
		return
	}
	delete(reqs, election)
	for _, p := range []string{r.path, r.epath} {
		if w.paths[p] == r {
			delete(w.paths, p)
		}
	}
}

// current reports whether r is still its election's request; w.mu is held.
func (w *watchSet) current(r *watchReq) bool { return !w.closed && w.kind(r)[r.known.Election] == r }

// kind returns the requests of r's kind: the roster requests, kept apart
// from the others (see backends.WatchSet), or those. w.mu is held.
func (w *watchSet) kind(r *watchReq) map[string]*watchReq {
	if r.roster {
		return w.rosters
	}
	return w.reqs
}

// keyRead forgets the marker answered for r's election (marked) if r is
// a Wait that read the key back: a marker means the key is absent (see
// mark), so the next marked delete's is another. w.mu is held.
func (w *watchSet) keyRead(r *watchReq, rec backends.Record) {
	if !r.gone && !r.roster && rec.Exists() {
		delete(w.marked, r.known.Election)
	}
}

// answer forgets r and queues its Change for run; w.mu is held.
func (w *watchSet) answer(r *watchReq, rec backends.Record, err error) {
	w.forget(w.kind(r), r.known.Election)
	if r.gone && rec.To != "" && err == nil {
		w.marked[r.known.Election] = r.markZ
	}
	w.keyRead(r, rec)
	c := backends.Change{Election: r.known.Election, Tag: r.tag, Record: rec, Err: err}
	if r.roster {
		c.Record, c.Roster = backends.Record{Election: r.known.Election}, true
	}
	w.out = append(w.out, c)
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run delivers the answers, in order, until Close.
func (w *watchSet) run() {
	for {
		select {
		case <-w.wake:
		case <-w.ctx.Done():
			return
		}
		for w.deliverNext() {
		}
	}
}

// deliverNext delivers the oldest answer not delivered, unless the set is
// closed, and reports whether it did.
func (w *watchSet) deliverNext() bool {
	w.turn.Lock()
	defer w.turn.Unlock()
	w.mu.Lock()
	if w.closed || len(w.out) == 0 {
		w.out = nil
		w.mu.Unlock()
		return false
	}
	c := w.out[0]
	w.out = w.out[1:]
	w.mu.Unlock()
	w.deliver(c)
	return true
}
