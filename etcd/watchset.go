package etcd

import (
	"context"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

// Watch returns a WatchSet served by one etcd watch on the adapter's
// prefix, which covers the leader keys, the queue entries and the roster
// records (the set is a backends.RosterWatchSet), and by one goroutine. The watch opens with the first request, at the current
// revision and requiring a leader, as Wait's does. A request whose known
// revision is behind the stream's position is covered by a read; reads
// are batched, one transaction of up to readBatch gets in flight at a
// time. A broken stream ends every pending request with an error (see
// streamErr), and the next request opens a new one.
//
// deliver may call Wait, WaitGone and Stop, but not Close: Close waits
// for a delivery in progress to return. A nil deliver panics.
func (s *store) Watch(deliver func(backends.Change)) backends.WatchSet {
	if deliver == nil {
		panic("etcd: Watch: deliver is nil; pass the function that takes the answers")
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watchSet{s: s, deliver: deliver, ctx: ctx, cancel: cancel,
		kick: make(chan struct{}, 1), done: make(chan struct{}), reads: make(chan readResult, 1),
		reqs: map[string]*request{}, byKey: map[string]*request{},
		rosters: map[string]*rosterReq{}, rosterSeen: map[string]uint64{}}
	go w.run()
	return w
}

// watchSet is the etcd WatchSet. The fields below mu are guarded by it;
// the stream's are the run goroutine's alone.
type watchSet struct {
	s       *store
	deliver func(backends.Change)
	ctx     context.Context // ends with Close
	cancel  context.CancelFunc
	kick    chan struct{} // a request was made
	done    chan struct{} // closed when run returns
	reads   chan readResult

	mu     sync.Mutex
	closed bool
	reqs   map[string]*request // by election
	byKey  map[string]*request // by etcd key
	fresh  []*request          // made since run last looked
	out    []backends.Change   // answers to deliver
	// passWoke is, by election, the term key revision of the last pass
	// a WaitGone was answered with (see wakePass).
	passWoke map[string]uint64
	// rosters are the roster requests, by election (watchset_roster.go);
	// freshRosters those made since run last looked.
	rosters      map[string]*rosterReq
	freshRosters []*rosterReq
	// rosterSeen is, by election, the revision of the last event on its
	// roster's records since start: one entry per roster that changed
	// meanwhile, at most maxRosterSeen. start is where the stream began,
	// or where rosterSeen was last emptied when it grew past that.
	rosterSeen map[string]uint64
	start      uint64

	wch     clientv3.WatchChan // nil while no stream is open
	stop    context.CancelFunc // ends the stream
	pos     uint64             // every event at or before it was seen; 0 until created
	toRead  []*request         // whose gap a read must cover
	reading bool               // a read is in flight
}

// request is one election's request.
type request struct {
	tag   uint64
	known backends.Record // the leader key's state, or the queue entry
	key   string
	gone  bool   // WaitGone: known is a queue entry
	seen  uint64 // events at or before it are reflected in known
}

// Wait asks for the first state of known.Election's leader key that
// differs from known (see backends.WatchSet).
func (w *watchSet) Wait(tag uint64, known backends.Record) {
	w.ask(&request{tag: tag, known: known, key: w.s.key(known.Election), seen: known.Revision})
}

// WaitGone asks to be told when entry is gone or nudged (see
// backends.WatchSet).
func (w *watchSet) WaitGone(tag uint64, entry backends.Record) {
	key := w.s.queuePrefix(entry.Election) + entry.Owner
	w.ask(&request{tag: tag, known: entry, key: key, gone: true, seen: entry.Revision})
}

// ask registers r, replacing its election's request, and wakes run.
func (w *watchSet) ask(r *request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.forget(r.known.Election)
	w.reqs[r.known.Election], w.byKey[r.key] = r, r
	w.fresh = append(w.fresh, r)
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Stop withdraws election's request, if any.
func (w *watchSet) Stop(election string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.forget(election)
}

// forget drops election's request; w.mu is held. A read in flight for it
// finds it no longer current (see current).
func (w *watchSet) forget(election string) {
	if r, ok := w.reqs[election]; ok {
		delete(w.reqs, election)
		delete(w.byKey, r.key)
	}
}

// current reports whether r is still its election's request; w.mu is
// held.
func (w *watchSet) current(r *request) bool { return w.reqs[r.known.Election] == r }

// answer ends r with rec or err, to be delivered after w.mu is released;
// w.mu is held.
func (w *watchSet) answer(r *request, rec backends.Record, err error) {
	w.forget(r.known.Election)
	w.out = append(w.out, backends.Change{Election: r.known.Election, Tag: r.tag, Record: rec, Err: err})
}

// Close ends the stream and every request, and returns once no answer
// can be delivered any more. It returns nil.
func (w *watchSet) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cancel()
	<-w.done
	return nil
}

// run is the set's goroutine: it opens the stream when requests wait,
// covers new requests, matches events and read results, and delivers.
// prepare answers too (a roster request whose change the stream carried
// before it was made: coverRosters), so its answers are delivered before
// run waits: no later event may come to carry them out.
func (w *watchSet) run() {
	defer close(w.done)
	for {
		w.prepare()
		w.flush()
		select {
		case <-w.ctx.Done():
			w.finish()
			return
		case <-w.kick:
		case resp, ok := <-w.wch:
			w.onStream(resp, ok)
		case res := <-w.reads:
			w.onRead(res)
		}
		w.flush()
	}
}

// finish ends the stream and waits for a read in flight.
func (w *watchSet) finish() {
	if w.stop != nil {
		w.stop()
	}
	if w.reading {
		<-w.reads
	}
}

// flush delivers the answers gathered, unless Close was called.
func (w *watchSet) flush() {
	w.mu.Lock()
	out := w.out
	w.out = nil
	w.mu.Unlock()
	for _, c := range out {
		if w.ctx.Err() != nil {
			return
		}
		w.deliver(c)
	}
}
