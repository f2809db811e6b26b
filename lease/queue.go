package lease

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// queue is the elector's place in the waiting queues of its elections, in
// the ordered-queue mode (WaitQueue). While an election waits for
// another holder, the elector keeps one entry in its queue, bound to the
// session, and watches only the entry ahead of it; at the head it watches
// the leader key. The entry goes when the election stops waiting (it wins,
// or its campaign ends) or with the session.
//
// Queue calls run in the elector's I/O goroutines; mu guards the state.
type queue struct {
	q  backends.Queuer
	mu sync.Mutex
	// els holds, per election, the entry and whether the election still
	// waits; unsure marks an Enqueue whose outcome is unknown, so that
	// leaving cleans up an entry it may have made.
	els map[string]*queued
}

type queued struct {
	entry  backends.Record // Token 0: none known
	wanted bool
	unsure bool
	head   bool // entry is at the head of the queue
}

func newQueue(q backends.Queuer) *queue { return &queue{q: q, els: map[string]*queued{}} }

// queueWait is the Wait of a waiting election in queue mode: it takes its
// place in the queue (once per session), waits until no entry is ahead of
// it, and then waits on the leader key as Wait does.
func (e *LeaseElector) queueWait(ctx context.Context, s backends.Session, a core.Action) (backends.Record, error) {
	var entry, ahead backends.Record
	for {
		var named *backends.Record
		var err error
		entry, ahead, named, err = e.queueStep(ctx, s, a.Election, entry, ahead.Token)
		switch {
		case err != nil:
			return backends.Record{}, err
		case named != nil:
			return *named, nil
		case !ahead.Exists():
			return e.store.Wait(ctx, a.Record)
		}
		if err := e.queue.q.WaitGone(ctx, ahead); err != nil {
			return backends.Record{}, err
		}
	}
}

// queueStep returns the election's entry, made on session s unless entry
// is already known, and the entry ahead of it, if any. If that is still
// the entry whose WaitGone returned (token prev), a handover may have
// nudged it to wake this candidate, its target (see handover.go): then
// the leader key is read, and returned as named if it is absent (the
// leader released it already) or its marker names s. The candidate then
// leaves the line for the key, as the head does.
func (e *LeaseElector) queueStep(ctx context.Context, s backends.Session, election string, entry backends.Record, prev uint64) (_, ahead backends.Record, named *backends.Record, err error) {
	if !entry.Exists() {
		if entry, err = e.enqueue(s, election); err != nil {
			return backends.Record{}, backends.Record{}, nil, err
		}
		token := entry.Token
		e.post(func(time.Time) { e.stand(election, token) })
	}
	if ahead, err = e.ahead(ctx, election, entry.Token); err != nil || !ahead.Exists() || ahead.Token != prev {
		return entry, ahead, nil, err
	}
	rec, err := e.get(ctx, election)
	if to, ok := handoverTo(rec.Value); err == nil && (!rec.Exists() || ok && to == s.ID()) {
		return entry, ahead, &rec, nil
	}
	return entry, ahead, nil, err
}

// want marks election as waiting in its queue. The loop calls it as the
// wait begins, before any enqueue for it, and calls leaveQueue when the
// election stops waiting: so an enqueue that comes after leaveQueue (its
// wait was withdrawn meanwhile) finds no mark and makes no entry, which
// would otherwise stay until the session ends and hold up the queue.
func (qu *queue) want(election string) {
	qu.mu.Lock()
	defer qu.mu.Unlock()
	if qu.els[election] == nil {
		qu.els[election] = &queued{}
	}
	qu.els[election].wanted = true
}

// enqueue returns the election's entry for session s, making it if needed.
// The call is bounded by RequestTimeout but not cancelled with the wait
// that asked for it, so that its outcome is known; if the election stopped
// waiting meanwhile, the entry is removed at once.
func (e *LeaseElector) enqueue(s backends.Session, election string) (backends.Record, error) {
	qu := e.queue
	qu.mu.Lock()
	st := qu.els[election]
	if st == nil {
		qu.mu.Unlock()
		return backends.Record{}, context.Canceled // left the queue before this wait began
	}
	if st.entry.Exists() && st.entry.Owner == s.ID() {
		defer qu.mu.Unlock()
		return st.entry, nil
	}
	qu.mu.Unlock()
	var entry backends.Record
	err := e.slotted(e.ctx, func(ctx context.Context) (err error) {
		entry, err = qu.q.Enqueue(ctx, s, election)
		return err
	})
	qu.mu.Lock()
	defer qu.mu.Unlock()
	switch {
	case err == nil && st.wanted:
		st.entry, st.unsure, st.head = entry, false, false
		return entry, nil
	case err == nil:
		e.dequeue(entry)
		return backends.Record{}, context.Canceled
	case !errors.Is(err, backends.ErrSessionExpired) && !errors.Is(err, backends.ErrUnavailable):
		st.unsure = true
	}
	return backends.Record{}, err
}

// ahead finds the entry ahead of token, bounded by RequestTimeout. An
// entry at the head stays there, since every entry enqueued after it has
// a greater token. So once Ahead found none, the head's later waits (each
// time the key changes hands to another) skip that read.
func (e *LeaseElector) ahead(ctx context.Context, election string, token uint64) (backends.Record, error) {
	if e.queue.atHead(election, token) {
		return backends.Record{Election: election}, nil
	}
	var rec backends.Record
	err := e.slotted(ctx, func(ctx context.Context) (err error) {
		rec, err = e.queue.q.Ahead(ctx, election, token)
		return err
	})
	if err == nil && !rec.Exists() {
		e.queue.markHead(election, token)
	}
	return rec, err
}

// atHead reports whether election's entry, if its token is token, is
// known to be at the head of the queue.
func (qu *queue) atHead(election string, token uint64) bool {
	qu.mu.Lock()
	defer qu.mu.Unlock()
	st := qu.els[election]
	return st != nil && st.entry.Token == token && st.head
}

// markHead records that election's entry, if its token is token, is at
// the head of the queue.
func (qu *queue) markHead(election string, token uint64) {
	qu.mu.Lock()
	defer qu.mu.Unlock()
	if st := qu.els[election]; st != nil && st.entry.Token == token {
		st.head = true
	}
}

// leaveQueue is called when election stops waiting: it won, or its
// campaign ended. It removes the election's entry, and one that an
// Enqueue of unknown outcome may have made.
func (e *LeaseElector) leaveQueue(election string, s backends.Session) {
	qu := e.queue
	if qu == nil {
		return
	}
	qu.mu.Lock()
	defer qu.mu.Unlock()
	st := qu.els[election]
	if st == nil {
		return
	}
	delete(qu.els, election)
	st.wanted = false
	switch {
	case st.entry.Exists():
		e.dequeue(st.entry)
	case st.unsure && s != nil:
		e.untilDone("queue entry of an uncertain enqueue not removed", election, func(ctx context.Context) error {
			entry, err := qu.q.Enqueue(ctx, s, election)
			if errors.Is(err, backends.ErrSessionExpired) {
				return nil // the entry, if any, went with the session
			}
			if err != nil {
				return err
			}
			return qu.q.Dequeue(ctx, entry)
		})
	}
}

// dequeue removes entry in the background, retrying until it is done or
// the elector closes. An entry left behind would hold up the waiter behind
// it until the session ends, so a failure is not left alone.
func (e *LeaseElector) dequeue(entry backends.Record) {
	e.untilDone("queue entry not removed", entry.Election, func(ctx context.Context) error {
		return e.queue.q.Dequeue(ctx, entry)
	})
}

// untilDone runs fn in a slot, bounded by RequestTimeout, in the
// background, and again after RetryInterval (with jitter) until it
// succeeds or the elector closes.
func (e *LeaseElector) untilDone(what, election string, fn func(context.Context) error) {
	e.io.Add(1)
	go func() {
		defer e.io.Done()
		for {
			err := e.slotted(e.ctx, fn)
			if err == nil || e.ctx.Err() != nil {
				return
			}
			e.log.Warn(what+"; retrying", "election", election, "err", err)
			select {
			case <-time.After(jitter(e.opts.RetryInterval)):
			case <-e.ctx.Done():
				return
			}
		}
	}()
}

// slotted runs fn in one of the election-call slots with a context
// bounded by RequestTimeout.
func (e *LeaseElector) slotted(ctx context.Context, fn func(context.Context) error) error {
	select {
	case e.slots <- struct{}{}:
		defer func() { <-e.slots }()
	case <-ctx.Done():
		return ctx.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
	defer cancel()
	return fn(ctx)
}
