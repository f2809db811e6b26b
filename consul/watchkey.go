package consul

import (
	"context"
	"fmt"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// MaxKeyQueries bounds Options.KeyQueries: how many blocking queries on
// single keys the WatchSets of a Store run at most.
const MaxKeyQueries = 64

// keyed is a request that a WatchSet serves with blocking queries on its
// own keys, instead of the hub's list of the prefix (see Watch).
type keyed struct {
	r      *request
	cancel context.CancelFunc
}

// cost is the number of blocking queries that serve r on its keys: a
// Wait reads the leader key; a WaitGone reads the entry and, for a pass
// behind it, the leader key.
func (r *request) cost() int {
	if r.gone {
		return 2
	}
	return 1
}

// serveKeyed replaces r's election's keyed request, and starts r's
// queries on its keys if the hub has room for them, withdrawing the
// election's request from the engine; it reports whether it did (a
// closed set takes r and drops it).
func (w *watchSet) serveKeyed(r *request) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	el := r.known.Election
	w.stopKeyed(el)
	switch {
	case w.closed:
		return true
	case !w.s.hub.reserve(r.cost()):
		return false
	}
	w.Set.Stop(el, backends.WatchKey)
	r.since = w.woke[el]
	ctx, cancel := context.WithCancel(w.ctx)
	k := &keyed{r: r, cancel: cancel}
	w.keyed[el] = k
	w.keyWG.Add(1)
	go func() {
		defer w.keyWG.Done()
		c, ok := w.awaitKeyed(ctx, r)
		cancel()
		w.s.hub.release(r.cost()) // before the answer: its next request may take them
		if ok {
			w.answerKeyed(k, c)
		}
	}()
	return true
}

// stopKeyed withdraws election's keyed request, if any. w.mu is held.
func (w *watchSet) stopKeyed(election string) {
	if k := w.keyed[election]; k != nil {
		k.cancel()
		delete(w.keyed, election)
	}
}

// answerKeyed hands k's answer c to the engine to deliver, unless k was
// withdrawn or replaced, or the set closed, meanwhile. An answer to a
// WaitGone with the key's state, a pass behind its entry, moves the
// election's woke on, so that its next keyed WaitGone is not answered for
// the same pass.
func (w *watchSet) answerKeyed(k *keyed, c backends.Change) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := k.r
	el := r.known.Election
	if w.closed || w.keyed[el] != k {
		return
	}
	delete(w.keyed, el)
	if c.Err == nil && r.gone && (c.Record.Token != r.known.Token || c.Record.Owner != r.known.Owner) {
		w.woke[el] = max(w.woke[el], c.Record.Revision)
	}
	w.Set.Answer(c)
}

// awaitKeyed runs r's queries until one answers, and reports false if
// ctx ended first.
func (w *watchSet) awaitKeyed(ctx context.Context, r *request) (backends.Change, bool) {
	el := r.known.Election
	c := backends.Change{Election: el, Tag: r.tag}
	if !r.gone {
		rec, err := w.s.awaitKey(ctx, r.known)
		c.Record, c.Err = rec, keyErr(w.s.key(el), err)
		return c, ctx.Err() == nil
	}
	both, cancel := context.WithCancel(ctx)
	out := make(chan backends.Change, 2)
	go func() {
		err := w.s.awaitGone(both, r.known)
		out <- backends.Change{Election: el, Tag: r.tag, Record: r.known, Err: keyErr(r.key, err)}
	}()
	go func() {
		rec, err := w.s.awaitPassBehind(both, r)
		out <- backends.Change{Election: el, Tag: r.tag, Record: rec, Err: keyErr(r.lead, err)}
	}()
	c = <-out
	cancel()
	<-out // the other query, ended
	return c, ctx.Err() == nil
}

// awaitPassBehind runs blocking queries on WaitGone r's leader key until
// it is locked, after r.since, by a session whose entry waits behind r's
// entry (see store.passed), and returns the key's state then. It lists
// the queue once first, so that a target, whose entry was in line before
// it asked, finds it there when the key is passed; an entry the list
// lacks is read when its session takes the key.
func (s *store) awaitPassBehind(ctx context.Context, r *request) (backends.Record, error) {
	el := r.known.Election
	prefix := s.queuePrefix(el)
	line, _, err := s.kv.List(prefix, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return backends.Record{}, err
	}
	var idx uint64
	for {
		k, meta, err := s.blockingGet(ctx, r.lead, idx)
		if err != nil {
			return backends.Record{}, err
		}
		if k != nil && k.Session != "" && k.ModifyIndex > r.since {
			e, err := s.entryOf(ctx, line, prefix+k.Session)
			if err != nil {
				return backends.Record{}, err
			}
			if isEntry(e, prefix) && e.CreateIndex > r.known.Token {
				return record(el, k, meta.LastIndex), nil
			}
		}
		idx = nextIndex(idx, meta.LastIndex)
	}
}

// entryOf returns the queue entry at key as line lists it, or, if line
// lacks it, as read now (nil if absent).
func (s *store) entryOf(ctx context.Context, line api.KVPairs, key string) (*api.KVPair, error) {
	for _, p := range line {
		if p.Key == key {
			return p, nil
		}
	}
	p, _, err := s.kv.Get(key, (&api.QueryOptions{}).WithContext(ctx))
	return p, err
}

// keyErr classifies a failed query on key as the hub classifies its own
// (see listErr); nil stays nil.
func keyErr(key string, err error) error {
	if err == nil {
		return nil
	}
	return streamErr("consul: watch "+key, err)
}

// reserve takes n of the Store's key queries if that many are free.
func (h *hub) reserve(n int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.keyQueries+n > h.s.keyQueries {
		return false
	}
	h.keyQueries += n
	return true
}

// release returns n key queries that reserve took.
func (h *hub) release(n int) {
	h.mu.Lock()
	h.keyQueries -= n
	h.mu.Unlock()
}

// streamErr classifies a failed query of a WatchSet: a refusal by the
// ACLs is backends.ErrPermission, anything else backends.ErrUnavailable
// (the stream broke; a read has no outcome to be unsure of).
func streamErr(what string, err error) error {
	if forbidden(err) {
		return fmt.Errorf("%s: %w: %w", what, backends.ErrPermission, err)
	}
	return fmt.Errorf("%s: %w: %w", what, backends.ErrUnavailable, err)
}
