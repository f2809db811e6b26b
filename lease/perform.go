package lease

import (
	"context"
	"log/slog"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// perform carries out one action of the state machine. Store calls run in
// their own goroutines and report back through post.
func (e *LeaseElector) perform(a core.Action) {
	switch a.Kind {
	case core.CreateSession:
		e.createSession(a.Epoch, a.TTL)
	case core.Renew:
		e.renew(a.Epoch, e.session(a.Epoch))
	case core.CloseSession:
		e.closeSession(a.Epoch)
	case core.Create:
		e.create(a, e.session(a.Epoch))
	case core.Get, core.Wait, core.WaitGone:
		e.observe(a)
	case core.Enqueue:
		e.enqueue(a)
	case core.Ahead:
		e.ahead(a)
	case core.Dequeue:
		e.dequeue(a)
	case core.Delete:
		e.delete(a, e.session(a.Epoch))
	case core.Elected:
		e.elected(a.Election, a.Record, a.Epoch)
	case core.Lost:
		e.lost(a.Election, a.Err)
		if !e.m.Active(a.Election) {
			e.forget(a.Election, unpart) // no Released follows
		}
	case core.Released:
		if l := e.of(a.Election).held; l != nil {
			e.ended(a.Election, l, ErrHandover) // a handover's end
		}
		e.forget(a.Election, unpart)
		e.released(a.Election, a.Err)
		e.nextCampaign(a.Election, a.Err)
	case core.SessionDenied:
		e.answerReady(awaited{err: a.Err})
	case core.Yield:
		e.yield(a.Election, a.Cause)
	case core.Pass:
		e.pass(a, e.session(a.Epoch))
	case core.Publish:
		e.policyMetrics().Damped(a.Election, a.Damped)
	case core.Join:
		e.join(a)
	case core.Leave:
		e.leave(a)
	case core.Sweep:
		e.sweep(a)
	}
}

// maxElectionCalls bounds the creates, deletes and reads for elections in
// flight at once, so that a thousand campaigns started together do not
// queue the session's renewals behind them. Renewals and session calls do
// not wait for a slot.
const maxElectionCalls = 32

// callSlots returns the elector's call slots: maxElectionCalls, or the
// store's bound (backends.Limits.MaxCalls) if lower.
func callSlots(storeMax int) int {
	if storeMax > 0 && storeMax < maxElectionCalls {
		return storeMax
	}
	return maxElectionCalls
}

// slotUse says whether a call waits for one of the election-call slots
// (see slots), and if so whether it is urgent.
type slotUse int

const (
	noSlot slotUse = iota
	inSlot
	urgentSlot
)

// slotFor returns the slot use of the call for action a.
func slotFor(a core.Action) slotUse {
	if a.Urgent {
		return urgentSlot
	}
	return inSlot
}

// call runs fn in a goroutine owned by the elector with a context bounded
// by RequestTimeout and ended by Close. Unless use is noSlot, fn first
// waits for one of maxElectionCalls slots; its timeout starts then.
func (e *LeaseElector) call(use slotUse, fn func(ctx context.Context)) {
	e.io.Add(1)
	go func() {
		defer e.io.Done()
		if use != noSlot {
			if !e.slots.acquire(e.ctx, use == urgentSlot) {
				return
			}
			defer e.slots.release()
		}
		ctx, cancel := context.WithTimeout(e.ctx, e.opts.RequestTimeout)
		defer cancel()
		fn(ctx)
	}()
}

func (e *LeaseElector) createSession(epoch uint64, ttl time.Duration) {
	e.call(noSlot, func(ctx context.Context) {
		sent := time.Now()
		s, err := e.store.NewSession(ctx, ttl)
		if err == nil {
			e.track(s, true)
			e.log.Debug("session created", "session", s.ID(), "ttl", s.TTL())
		} else {
			lvl := e.levelOf(err)
			if core.Permanent(err) {
				lvl = slog.LevelDebug // the core reports it: to each campaign it ends, and to Ready
			}
			e.log.Log(ctx, lvl, "session creation failed", "err", err)
		}
		e.post(func(now time.Time) {
			if err != nil {
				e.m.SessionFailed(now, epoch, err)
				return
			}
			e.sessions[epoch] = &session{Session: s}
			e.m.SessionCreated(now, epoch, s.ID(), s.TTL(), sent)
		})
	})
}

// renew sends one renewal, bounded only by the holder's deadline (and
// Close), not by RequestTimeout: an answer that comes late still extends
// the deadline from its send time (core.Machine.Renewed).
func (e *LeaseElector) renew(epoch uint64, s backends.Session) {
	ctx, cancel := context.WithDeadline(e.ctx, e.m.Deadline())
	e.io.Add(1)
	go func() {
		defer e.io.Done()
		defer cancel()
		sent := time.Now()
		err := s.KeepAlive(ctx)
		if err == nil {
			e.opts.Metrics.Renewed(time.Since(sent))
		} else {
			e.log.Log(ctx, e.levelOf(err), "session renewal failed", "session", s.ID(), "err", err)
		}
		e.postRenewal(func(now time.Time) {
			if err != nil {
				e.m.RenewFailed(now, epoch, err)
				return
			}
			e.m.Renewed(now, epoch, sent)
		})
	}()
}

func (e *LeaseElector) create(a core.Action, s backends.Session) {
	e.stopWatch(a.Election)
	e.call(slotFor(a), func(ctx context.Context) {
		rec, err := s.Create(ctx, a.Election, encodeValue(e.opts.Identity, time.Now()))
		e.post(func(now time.Time) { e.m.Created(now, a.Election, a.Op, rec, err) })
	})
}

// delete deletes the key, the core's Delete.
func (e *LeaseElector) delete(a core.Action, s backends.Session) {
	e.stopWatch(a.Election)
	e.call(inSlot, func(ctx context.Context) {
		_, err := s.End(ctx, backends.End{Election: a.Election, Token: a.Token, Leave: a.Leave})
		e.post(func(now time.Time) {
			e.leftWith(now, a, err)
			e.m.Deleted(now, a.Election, a.Op, err)
		})
	})
}

// observe runs a Get (bounded by RequestTimeout). A Wait or WaitGone is
// a request in the elector's WatchSet instead (see watchInSet), and no
// goroutine waits for it.
func (e *LeaseElector) observe(a core.Action) {
	e.stopWatch(a.Election)
	if a.Kind != core.Get {
		e.watchInSet(a)
		return
	}
	ctx, cancel := context.WithCancel(e.ctx)
	w := &watch{watchOp: watchOpOf(a), cancel: cancel}
	e.entry(a.Election).watch = w
	e.io.Add(1)
	go func() {
		defer e.io.Done()
		defer cancel()
		rec, err := e.get(ctx, a.Election, a.Urgent)
		e.post(func(now time.Time) {
			e.unwatch(w)
			e.watched(now, w.watchOp, rec, err)
		})
	}()
}

// watched reports the outcome of the core's Get, Wait or WaitGone w.
func (e *LeaseElector) watched(now time.Time, w watchOp, rec backends.Record, err error) {
	e.trace("watch answer", w.election, w.op, rec, err)
	switch {
	case w.kind == core.WaitGone && err == nil && (rec.Token != w.token || rec.Owner != w.owner):
		e.m.Woken(now, w.election, w.op, rec) // the key's state: see backends.Change
		return
	case w.kind == core.WaitGone:
		e.m.Gone(now, w.election, w.op, err)
		return
	}
	e.observed(now, w.election, w.op, rec, err)
}

// observed reports the outcome of the core's Get or Wait op.
func (e *LeaseElector) observed(now time.Time, election string, op uint64, rec backends.Record, err error) {
	e.m.Observed(now, election, op, rec, err)
}

// stopWatch ends the Get, Wait or WaitGone of name in flight, if any.
func (e *LeaseElector) stopWatch(name string) {
	if w := e.of(name).watch; w != nil {
		e.unwatch(w)
		e.withdraw(w)
	}
}

// unwatch forgets w, if it is its election's watch in flight: answered,
// or stopped.
func (e *LeaseElector) unwatch(w *watch) {
	e.forget(w.election, func(el *election) {
		if el.watch == w {
			el.watch = nil
		}
	})
}

// get reads an election's key in one of the election-call slots (see
// call), urgent or not, bounded by RequestTimeout from when it has one;
// unlike call, it ends with ctx, the watch's interest in it.
func (e *LeaseElector) get(ctx context.Context, election string, urgent bool) (backends.Record, error) {
	if !e.slots.acquire(ctx, urgent) {
		return backends.Record{}, ctx.Err()
	}
	defer e.slots.release()
	ctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
	defer cancel()
	return e.store.Get(ctx, election)
}

// liveSession returns the session the machine counts as live, or nil.
func (e *LeaseElector) liveSession() backends.Session {
	id := e.m.SessionID()
	for _, s := range e.sessions {
		if id != "" && !s.closing && s.ID() == id {
			return s.Session
		}
	}
	return nil
}
