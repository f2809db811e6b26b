package lease

import (
	"context"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// The queue calls of the ordered-queue mode (WaitQueue). The core decides
// every step in line and every retry (see core's queue.go); these carry
// out its Enqueue, Ahead and Dequeue actions, one attempt each in a slot,
// and report the outcome. Its WaitGone is a watch (see observe).

// enqueue makes the session's entry in a.Election's queue, the core's
// Enqueue. An election's own Enqueue supersedes its watch; a cleanup's
// does not.
func (e *LeaseElector) enqueue(a core.Action) {
	if !a.Cleanup {
		e.stopWatch(a.Election)
	}
	s := e.session(a.Epoch)
	if s == nil { // closed: its entries went with it
		err := fmt.Errorf("lease: enqueue %q: session closed: %w", a.Election, backends.ErrSessionExpired)
		e.report(func(now time.Time) { e.m.Enqueued(now, a.Election, a.Op, backends.Record{}, err) })
		return
	}
	e.call(inSlot, func(ctx context.Context) {
		rec, err := s.Enqueue(ctx, a.Election)
		e.post(func(now time.Time) { e.m.Enqueued(now, a.Election, a.Op, rec, err) })
	})
}

// ahead finds the entry ahead of a.Token in a.Election's queue, the
// core's Ahead. One that checks a handover target's place (a.To) looks
// in the store's queue whatever this elector's wait mode, as the
// target's counts, not ours.
func (e *LeaseElector) ahead(a core.Action) {
	e.stopWatch(a.Election)
	if a.To != "" {
		e.handing(a)
	}
	e.call(inSlot, func(ctx context.Context) {
		rec, err := e.store.Ahead(ctx, a.Election, a.Token)
		e.post(func(now time.Time) { e.m.AheadFound(now, a.Election, a.Op, rec, err) })
	})
}

// dequeue removes the queue entry a.Record, the core's Dequeue, which
// retries it until it is done: an entry left behind would hold up the
// waiter behind it until the session ends.
func (e *LeaseElector) dequeue(a core.Action) {
	e.call(inSlot, func(ctx context.Context) {
		err := e.store.Dequeue(ctx, a.Record)
		if err != nil {
			e.log.Log(ctx, e.levelOf(err), "queue entry not removed", "election", a.Election, "err", err)
		}
		e.post(func(now time.Time) { e.m.Dequeued(now, a.Op, err) })
	})
}
