package consul

import (
	"context"
	"sync"

	"github.com/leasehold/leasehold/backends"
)

// Watch starts a WatchSet (see backends.Watcher) over one blocking query:
// a recursive KV list of the Store's prefix, which holds every leader key
// and queue entry, so one query serves every election of the set. Each
// answer of the query replaces the set's view of the prefix; a request
// is answered from the first view read at or after its known Revision
// (Store.Wait's and Queuer.WaitGone's Records carry Consul indexes) in
// which its state differs. The set has one goroutine, plus the one that
// runs the query in flight, and one HTTP connection at a time.
//
// Any change under the prefix (a leader key, a queue entry, guarded data)
// wakes the query, which then reads the whole prefix again: a set costs
// one list of the prefix per change under it, and, while nothing
// changes, one per Options.WaitTime.
//
// A query that fails ends the requests pending then: with an error
// wrapping backends.ErrPermission on a 403, or when Consul filtered the
// list by the token's ACLs (the set cannot see every key; an elector's
// token needs read on its whole prefix), and otherwise
// backends.ErrUnavailable. The next request starts a new query.
//
// deliver is called from the set's goroutine. Close may be called from
// deliver; called elsewhere while deliver runs, it does not wait for
// that call to return. No deliver call begins after Close returns.
func (s *store) Watch(deliver func(backends.Change)) backends.WatchSet {
	ctx, cancel := context.WithCancel(context.Background())
	w := &watchSet{s: s, deliver: deliver, ctx: ctx, cancel: cancel,
		reqs:    make(map[string]*request),
		wake:    make(chan struct{}, 1),
		results: make(chan listing, 1),
		done:    make(chan struct{}),
	}
	go w.run()
	return w
}

// watchSet is the Store's backends.WatchSet.
type watchSet struct {
	s       *store
	deliver func(backends.Change)
	ctx     context.Context // ends with Close; the query's context
	cancel  context.CancelFunc
	wake    chan struct{} // cap 1: run has answers to deliver or a query to start
	results chan listing  // cap 1: the answer of the query in flight
	done    chan struct{} // closed when run returns

	mu         sync.Mutex
	reqs       map[string]*request // pending requests, by election
	view       view                // the last answer of the query
	next       uint64              // WaitIndex of the next query
	out        []backends.Change   // answers waiting for deliver
	querying   bool                // a query is in flight
	delivering bool                // run is in deliver
	closed     bool
}

var _ backends.Watcher = (*store)(nil)

// Wait asks for the first state of known.Election's leader key that
// differs from known (see backends.WatchSet).
func (w *watchSet) Wait(tag uint64, known backends.Record) {
	w.add(&request{tag: tag, known: known, key: w.s.key(known.Election), after: known.Revision})
}

// WaitGone asks to be told when the queue entry is gone (see
// backends.WatchSet).
func (w *watchSet) WaitGone(tag uint64, entry backends.Record) {
	prefix := w.s.queuePrefix(entry.Election)
	w.add(&request{tag: tag, known: entry, key: prefix + entry.Owner, gone: true, after: entry.Revision})
}

// Stop withdraws election's request, if any.
func (w *watchSet) Stop(election string) {
	w.mu.Lock()
	delete(w.reqs, election)
	w.mu.Unlock()
}

// Close ends the query and every request; see Watch for when it waits.
func (w *watchSet) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed, w.reqs, w.out = true, nil, nil
	delivering := w.delivering
	w.mu.Unlock()
	w.cancel()
	if !delivering {
		<-w.done
	}
	return nil
}

// add answers r at once if the view tells, and otherwise keeps it,
// replacing the election's earlier request.
func (w *watchSet) add(r *request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if c, ok := w.view.answer(r); ok {
		delete(w.reqs, r.known.Election)
		w.out = append(w.out, c)
	} else {
		w.reqs[r.known.Election] = r
	}
	w.poke()
}

// poke wakes run without blocking.
func (w *watchSet) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}
