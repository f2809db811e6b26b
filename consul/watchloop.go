package consul

import (
	"errors"
	"fmt"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// listing is the answer of one recursive list of the prefix.
type listing struct {
	pairs    api.KVPairs
	index    uint64
	filtered bool // Consul left out keys the token may not read
	err      error
}

// run is the set's goroutine: it delivers answers and keeps one query in
// flight while requests are pending, until Close.
func (w *watchSet) run() {
	defer close(w.done)
	for {
		select {
		case <-w.wake:
		case l := <-w.results:
			w.apply(l)
		case <-w.ctx.Done():
			w.drain()
			return
		}
		w.flush()
		w.startQuery()
	}
}

// drain waits for the query in flight, which Close has canceled.
func (w *watchSet) drain() {
	w.mu.Lock()
	querying := w.querying
	w.mu.Unlock()
	if querying {
		<-w.results
	}
}

// startQuery starts a query if requests are pending and none is in flight.
func (w *watchSet) startQuery() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.querying || len(w.reqs) == 0 {
		return
	}
	w.querying = true
	go w.list(w.next)
}

// list runs one blocking query on the prefix from index and hands its
// answer to run.
func (w *watchSet) list(index uint64) {
	q := (&api.QueryOptions{WaitIndex: index, WaitTime: w.s.waitTime}).WithContext(w.ctx)
	pairs, meta, err := w.s.kv.List(w.s.prefix, q)
	l := listing{pairs: pairs, err: err}
	if err == nil {
		l.index, l.filtered = meta.LastIndex, meta.ResultsFilteredByACLs
	}
	w.results <- l
}

// apply takes a query's answer: it ends every pending request if the
// query failed, and otherwise makes the answer the view and answers the
// requests it tells.
func (w *watchSet) apply(l listing) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.querying = false
	if w.closed {
		return
	}
	if err := w.listErr(l); err != nil {
		for el, r := range w.reqs {
			w.out = append(w.out, backends.Change{Election: el, Tag: r.tag, Err: err})
		}
		clear(w.reqs)
		return
	}
	if l.index < w.view.index { // Consul's index went back: compare from this view
		for _, r := range w.reqs {
			r.after = 0
		}
	}
	w.view = newView(l.pairs, l.index)
	w.next = nextIndex(w.next, l.index)
	for el, r := range w.reqs {
		if c, ok := w.view.answer(r); ok {
			delete(w.reqs, el)
			w.out = append(w.out, c)
		}
	}
}

// listErr classifies a failed query: a refusal by the ACLs is
// backends.ErrPermission, anything else backends.ErrUnavailable (the
// stream broke; a read did nothing to retry with care).
func (w *watchSet) listErr(l listing) error {
	what := "consul: watch " + w.s.prefix
	switch {
	case l.err == nil && l.filtered:
		return fmt.Errorf("%s: %w: the ACL token may not read every key under the prefix (Consul filtered the list); the watch needs read on all of it", what, backends.ErrPermission)
	case l.err == nil:
		return nil
	case forbidden(l.err):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrPermission, l.err)
	}
	err := classify("watch "+w.s.prefix, "", w.ctx, l.err)
	if !errors.Is(err, backends.ErrUnavailable) {
		err = fmt.Errorf("%s: %w: %w", what, backends.ErrUnavailable, l.err)
	}
	return err
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
	w.delivering = true
	w.mu.Unlock()
	w.deliver(c)
	w.mu.Lock()
	w.delivering = false
	w.mu.Unlock()
	return true
}
