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
// A Wait request watches the election's pointer node and, while the key
// is as known, its lead node, as Driver.Wait does. A WaitGone request
// watches the entry it names and, if one of this Store's sessions has
// the entry just behind it (Enqueue), that entry too: a pass to it sets
// its data (see End), and the set then reads the pointer, with no sync
// (the server that sent the notification has the pass), and answers with
// the key passed to that entry's session. The first read of a WaitGone
// reads the pointer too, so a pass made before the watch was set is
// answered; each pass is answered once per set and election.
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
		passed: make(map[string]uint64)}
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
	// passed holds, by election, the token of the pass a WaitGone was
	// last answered with: no later request is answered with it.
	passed map[string]uint64
}

// watchReq is one request of a set. The small fields sit together at
// the end: a set keeps one or two requests per election an elector
// holds, and padding them a word each put the struct in the next size
// class.
type watchReq struct {
	tag   uint64
	known backends.Record // Wait: the state known; WaitGone: the entry
	path  string          // Wait: the pointer node; WaitGone: the entry; roster: the roster node
	own   string          // WaitGone: the entry behind known of this Store's (see ownEntries), "" if none
	owner string          // WaitGone: own's session

	// Under the set's mutex:
	reads uint64       // reads taken so far (see read)
	l     *link        // the link of the read in progress or of the watch
	other string       // watching: Wait's lead node, WaitGone's own entry ("": none)
	fired zk.EventType // while reading: an event came for the request on l (0: none)
	state reqState
	check bool // WaitGone: own's data changed: the next read reads the pointer first
	nudge bool // WaitGone: the entry's data changed: a nudge, unless a pass wrote it
	sync  bool // the next read follows a sync

	// Set when the request is made:
	gone bool // a WaitGone
	// roster marks a roster request (WaitRoster): path is the roster
	// node, and known holds the election and the revision to wait from.
	roster bool
}

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
	w.ask(&watchReq{tag: tag, known: known, path: path}, err)
}

// waitGone takes a WatchEntry request (see Wait). An entry with Token 0 (none) is
// gone at once. The entry's node is read with a getData watch, which
// fires on its deletion and on a change of its data: either
// answers the request with the entry. The entry behind it, if this
// Store's, is watched for a pass (see Watch).
func (w *watchSet) waitGone(tag uint64, entry backends.Record) {
	path, err := w.s.checkedEntry(fmt.Sprintf("queue entry at token %d", entry.Token), entry)
	r := &watchReq{tag: tag, known: entry, path: path, gone: true}
	if own, ok := w.s.own.behind(entry.Election, entry.Token); ok && err == nil && path != "" {
		if p, perr := w.s.entryPath(own); perr == nil {
			r.own, r.owner = p, own.Owner
		}
	}
	w.ask(r, err)
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
		w.watchOther(r, r.own)
		r.sync = true
		w.queue(r)
	}
}

// stopKey withdraws election's WatchKey or WatchEntry request (see Stop).
func (w *watchSet) stopKey(election string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.forget(w.reqs, election)
}

// Close implements backends.WatchSet.
func (w *watchSet) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.reqs, w.rosters, w.paths, w.todo, w.out, w.passed = nil, nil, nil, nil, nil, nil
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
	for _, p := range []string{r.path, r.other} {
		if w.paths[p] == r {
			delete(w.paths, p)
		}
	}
}

// watchOther routes the notifications of r's second watched node, at
// path ("": none), to r; w.mu is held.
func (w *watchSet) watchOther(r *watchReq, path string) {
	if r.other != "" && r.other != r.path && w.paths[r.other] == r {
		delete(w.paths, r.other)
	}
	r.other = path
	if path != "" {
		w.paths[path] = r
	}
}

// current reports whether r is still its election's request; w.mu is held.
func (w *watchSet) current(r *watchReq) bool { return !w.closed && w.kind(r)[r.known.Election] == r }

// kind returns the requests of r's kind: the roster requests, kept apart
// from the others (see backends.RosterWatchSet), or those. w.mu is held.
func (w *watchSet) kind(r *watchReq) map[string]*watchReq {
	if r.roster {
		return w.rosters
	}
	return w.reqs
}

// answer forgets r and queues its Change for run; w.mu is held.
func (w *watchSet) answer(r *watchReq, rec backends.Record, err error) {
	w.forget(w.kind(r), r.known.Election)
	if r.gone && err == nil && rec.Owner != "" && rec.Owner != r.known.Owner {
		w.passed[r.known.Election] = rec.Token
	}
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
