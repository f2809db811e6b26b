package lease

import (
	"context"
	"sync"

	"github.com/leasehold/leasehold/backends"
)

// observers carries the waits of Observe and ObserveCandidates in one
// WatchSet of the elector's, apart from the set its campaigns use: a set
// holds one request per election and kind, so an election campaigned and
// observed on one elector needs two. It holds one request per election
// and kind for every observer of it: observers that know the same state
// share the request and its answer. It is safe for concurrent use.
type observers struct {
	store backends.Driver

	mu      sync.Mutex
	set     backends.WatchSet // made at the first wait; nil after close
	closed  bool
	tags    uint64
	keys    map[string]*obsRequest // WatchKey requests, by election
	rosters map[string]*obsRequest // WatchRoster requests, by election
}

// obsRequest is one request in the observers' set and the observers
// waiting for its answer.
type obsRequest struct {
	req     backends.WatchRequest
	waiters map[chan backends.Change]struct{} // each buffered for one answer
}

// waitKey waits for election's leader key to differ from known, as a
// WatchKey request is answered, or for ctx to end.
func (o *observers) waitKey(ctx context.Context, known backends.Record) (backends.Record, error) {
	c := o.wait(ctx, backends.WatchRequest{Kind: backends.WatchKey, Known: known})
	return c.Record, c.Err
}

// wait adds an observer with requests rs (Tag unset), of distinct
// kinds, and returns the first answer it gets, or an error wrapping
// ErrCanceled when ctx ends first. Every request of it has ended when it
// returns.
func (o *observers) wait(ctx context.Context, rs ...backends.WatchRequest) backends.Change {
	ch := make(chan backends.Change, len(rs))
	defer func() {
		for _, r := range rs {
			o.remove(r, ch)
		}
	}()
	for _, r := range rs {
		if !o.add(r, ch) {
			return backends.Change{Election: r.Known.Election, Err: backends.ErrCanceled} // closed: ctx has ended
		}
	}
	select {
	case c := <-ch:
		return c
	case <-ctx.Done():
		return backends.Change{Election: rs[0].Known.Election, Err: backends.Canceled(ctx)}
	}
}

// add adds ch as a waiter for r: to the election's request of r's kind
// if it knows the same state, or to a new one. Of two requests that
// know different states, the one read at the lower revision is answered
// at once with the later state, which differs from it (for a roster, an
// early answer). It returns false after close.
func (o *observers) add(r backends.WatchRequest, ch chan backends.Change) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	m := o.requests(r.Kind)
	cur := m[r.Known.Election]
	switch {
	case cur != nil && !changedFrom(cur.req, r):
		cur.waiters[ch] = struct{}{}
		return true
	case cur != nil && r.Known.Revision < cur.req.Known.Revision:
		ch <- answerAt(cur.req, r) // r is the stale one
		return true
	case cur != nil:
		for w := range cur.waiters {
			w <- answerAt(r, cur.req)
		}
	}
	o.tags++
	r.Tag = o.tags
	m[r.Known.Election] = &obsRequest{req: r, waiters: map[chan backends.Change]struct{}{ch: {}}}
	o.watchSet().Wait(r)
	return true
}

// changedFrom reports whether r knows another state than cur.
func changedFrom(cur, r backends.WatchRequest) bool {
	if r.Kind == backends.WatchRoster {
		return r.Digest != cur.Digest
	}
	return r.Known.Differs(cur.Known)
}

// answerAt is the answer to stale, a request that knows an older state
// than later.
func answerAt(later, stale backends.WatchRequest) backends.Change {
	c := backends.Change{Election: stale.Known.Election, Tag: stale.Tag, Record: later.Known}
	if stale.Kind == backends.WatchRoster {
		c.Roster, c.Record = true, backends.Record{Election: stale.Known.Election}
	}
	return c
}

// remove withdraws the waiter ch of r's kind, if it still waits, and
// the request when it was the last.
func (o *observers) remove(r backends.WatchRequest, ch chan backends.Change) {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := o.requests(r.Kind)
	cur := m[r.Known.Election]
	if cur == nil {
		return
	}
	if _, ok := cur.waiters[ch]; !ok {
		return
	}
	delete(cur.waiters, ch)
	if len(cur.waiters) == 0 {
		delete(m, r.Known.Election)
		if o.set != nil {
			o.set.Stop(r.Known.Election, r.Kind)
		}
	}
}

// deliver hands the set's answer c to the waiters of the request it
// answers, if that is still the election's.
func (o *observers) deliver(c backends.Change) {
	kind := backends.WatchKey
	if c.Roster {
		kind = backends.WatchRoster
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	m := o.requests(kind)
	cur := m[c.Election]
	if cur == nil || cur.req.Tag != c.Tag {
		return
	}
	delete(m, c.Election)
	for w := range cur.waiters {
		w <- c
	}
}

// requests returns the requests of kind by election. With mu held.
func (o *observers) requests(kind backends.WatchKind) map[string]*obsRequest {
	if kind == backends.WatchRoster {
		if o.rosters == nil {
			o.rosters = map[string]*obsRequest{}
		}
		return o.rosters
	}
	if o.keys == nil {
		o.keys = map[string]*obsRequest{}
	}
	return o.keys
}

// watchSet returns the set, made at its first use. With mu held.
func (o *observers) watchSet() backends.WatchSet {
	if o.set == nil {
		o.set = o.store.Watch(o.deliver)
	}
	return o.set
}

// close closes the set, if one was made; no wait is accepted after it.
// The elector calls it once every observer has returned.
func (o *observers) close() error {
	o.mu.Lock()
	set := o.set
	o.set, o.closed = nil, true
	o.mu.Unlock()
	if set == nil {
		return nil
	}
	return set.Close()
}
