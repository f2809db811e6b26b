package consul

import (
	"context"
	"sync"

	"github.com/leasehold/leasehold/backends"
)

// Watch starts a WatchSet (see backends.Watcher). A request is answered
// from the first state read at or after its known Revision (Store.Wait's
// and Queuer's Records carry Consul indexes) that differs from it.
//
// While the Store has key queries to spare (Options.KeyQueries), a
// request is served by blocking queries on its own keys, as Store.Wait
// and Queuer.WaitGone run them: a Wait on the leader key; a WaitGone on
// the entry, and on the leader key for a pass behind the entry (see
// backends.Passer), which it tells by the new holder's entry, as listed
// with the queue when the wait began or else read then. Such a request
// is answered as soon as its key changes, and costs a connection per
// query while it waits.
//
// Beyond them, the requests of every set of a Store share one blocking
// query: a recursive KV list of the Store's prefix, which holds every
// leader key and queue entry, so one query serves every election of
// every set. Each answer of the query becomes the sets' view of the
// prefix, from which the requests are answered, roster requests
// (backends.RosterWatchSet) among them. The query runs while a
// set has such a request pending, over one HTTP connection. Any change
// under the prefix (a leader key, a queue entry, a candidate record,
// guarded data) wakes it, and it then reads the whole prefix again: the
// sets of a Store cost one list of the prefix per change under it, and,
// while nothing changes, one per Options.WaitTime. Each set has one
// goroutine, which delivers its answers.
//
// A shared query that fails ends the requests pending on it then, and a
// key query its own request: with an error wrapping
// backends.ErrPermission on a 403, or when Consul filtered the list by
// the token's ACLs (the sets cannot see every key; an elector's token
// needs read on its whole prefix), and otherwise backends.ErrUnavailable.
// The next request starts a new query.
//
// deliver is called from the set's goroutine. It may call Wait, WaitGone
// and Stop, but not Close: Close waits for a delivery in progress to
// return. A nil deliver panics.
func (s *store) Watch(deliver func(backends.Change)) backends.WatchSet {
	if deliver == nil {
		panic("consul: Watch: deliver is nil; pass the function that takes the answers")
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watchSet{hub: s.hub, deliver: deliver, ctx: ctx, cancel: cancel,
		reqs:    make(map[string]*request),
		rosters: make(map[string]*rosterReq),
		keyed:   make(map[string]*keyed),
		woke:    make(map[string]uint64),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	s.hub.join(w)
	go w.run()
	return w
}

// watchSet is the Store's backends.WatchSet.
type watchSet struct {
	hub     *hub
	deliver func(backends.Change)
	ctx     context.Context // ends with Close
	cancel  context.CancelFunc
	wake    chan struct{} // cap 1: there are answers to deliver
	done    chan struct{} // closed when run returns

	keyWG sync.WaitGroup // the goroutines of keyed requests

	mu      sync.Mutex
	reqs    map[string]*request   // pending requests the hub serves, by election
	rosters map[string]*rosterReq // pending roster requests, by election (watchroster.go)
	keyed   map[string]*keyed     // pending requests served on their keys, by election
	woke    map[string]uint64     // by election: the index of the last answer to a pass (see answer)
	view    view                  // the hub's latest view
	out     []backends.Change     // answers waiting for deliver
	closed  bool
}

var _ backends.Watcher = (*store)(nil)

// Wait asks for the first state of known.Election's leader key that
// differs from known (see backends.WatchSet).
func (w *watchSet) Wait(tag uint64, known backends.Record) {
	w.add(&request{tag: tag, known: known, key: w.hub.s.key(known.Election), after: known.Revision})
}

// WaitGone asks to be told when the queue entry is gone (see
// backends.WatchSet), or when the leader key is passed to a session whose
// entry waits behind it (see backends.Passer).
func (w *watchSet) WaitGone(tag uint64, entry backends.Record) {
	key := w.hub.s.queuePrefix(entry.Election) + entry.Owner
	lead := w.hub.s.key(entry.Election)
	w.add(&request{tag: tag, known: entry, key: key, gone: true, lead: lead, after: entry.Revision})
}

// Stop withdraws election's request, if any.
func (w *watchSet) Stop(election string) {
	w.mu.Lock()
	delete(w.reqs, election)
	w.stopKeyed(election)
	w.mu.Unlock()
}

// Close ends every request, leaves the hub and waits for the set's
// goroutine, and so for a delivery in progress.
func (w *watchSet) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed, w.reqs, w.keyed, w.rosters, w.out = true, nil, nil, nil, nil
	w.mu.Unlock()
	w.cancel()
	w.keyWG.Wait()
	w.hub.leave(w)
	<-w.done
	return nil
}

// add answers r at once if the view tells, and otherwise keeps it,
// replacing the election's earlier request: served on its keys if the
// Store has key queries to spare, and otherwise by the hub, which it asks
// for a view.
func (w *watchSet) add(r *request) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	el := r.known.Election
	r.since = w.woke[el]
	w.stopKeyed(el)
	delete(w.reqs, el)
	if w.answered(r) || w.serveKeyed(r) {
		w.mu.Unlock()
		return
	}
	w.reqs[el] = r
	w.mu.Unlock()
	w.hub.want()
}

// take answers r from the view or keeps it. w.mu is held.
func (w *watchSet) take(r *request) {
	if w.answered(r) {
		delete(w.reqs, r.known.Election)
		return
	}
	w.reqs[r.known.Election] = r
}

// answered answers r from the view if the view tells, and reports
// whether it did. w.mu is held.
func (w *watchSet) answered(r *request) bool {
	c, ok := w.view.answer(r)
	if ok {
		w.answer(r, c)
	}
	return ok
}

// answer hands r's answer c to run. An answer to a WaitGone with the
// key's state, a pass behind its entry, moves the election's woke on, so
// that its next WaitGone is not answered for the same pass. w.mu is held.
func (w *watchSet) answer(r *request, c backends.Change) {
	if c.Err == nil && r.gone && (c.Record.Token != r.known.Token || c.Record.Owner != r.known.Owner) {
		el := r.known.Election
		w.woke[el] = max(w.woke[el], c.Record.Revision)
	}
	w.out = append(w.out, c)
	w.poke()
}

// poke wakes run without blocking.
func (w *watchSet) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run is the set's goroutine: it delivers answers until Close.
func (w *watchSet) run() {
	defer close(w.done)
	for {
		select {
		case <-w.wake:
			w.flush()
		case <-w.ctx.Done():
			return
		}
	}
}

// flush delivers the waiting answers one at a time, without the lock,
// and stops as soon as the set is closed.
func (w *watchSet) flush() {
	for {
		w.mu.Lock()
		batch := w.out
		w.out = nil
		w.mu.Unlock()
		if len(batch) == 0 {
			return
		}
		for _, c := range batch {
			if !w.deliverOne(c) {
				return
			}
		}
	}
}

// deliverOne delivers c unless the set is closed, and reports whether it
// did.
func (w *watchSet) deliverOne(c backends.Change) bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	w.mu.Unlock()
	w.deliver(c)
	return true
}
