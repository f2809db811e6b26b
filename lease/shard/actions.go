package shard

import (
	"context"
	"errors"
	"time"

	"github.com/leasehold/leasehold/lease"
)

// replan performs the plan for the current view; once a leaving member
// has nothing left, it stops following the roster.
func (lp *loop) replan() {
	if lp.abort {
		return
	}
	v := view{me: lp.me, leaving: lp.leaving, owners: lp.own, have: make([]phase, len(lp.slots)), moving: map[int]string{}}
	for s, sl := range lp.slots {
		v.have[s] = sl.phase
		if sl.mover != nil {
			v.moving[s] = sl.mover.to
		}
	}
	p := decide(v)
	if len(p.campaign)+len(p.cancel)+len(p.move)+len(p.stop)+len(p.resign) > 0 {
		lp.g.opts.Logger.Debug("shard plan", "group", lp.g.name, "campaign", p.campaign, "cancel", p.cancel,
			"move", p.move, "stop", p.stop, "resign", p.resign)
	}
	for _, s := range p.campaign {
		lp.campaign(s)
	}
	for _, s := range p.cancel {
		lp.cancel(s)
	}
	for s, to := range p.move {
		lp.move(s, to)
	}
	for _, s := range p.stop {
		lp.stopMove(s)
	}
	for _, s := range p.resign {
		lp.slots[s].cancel()
	}
	if lp.leaving && len(v.moving) == 0 && lp.idle() {
		lp.stopFollow()
	}
}

// idle reports whether no shard is campaigned for or held.
func (lp *loop) idle() bool {
	for _, sl := range lp.slots {
		if sl.phase != idle {
			return false
		}
	}
	return true
}

// campaign starts the campaign for shard s.
func (lp *loop) campaign(s int) {
	ctx, cancel := context.WithCancel(context.Background())
	lp.slots[s] = slot{phase: campaigning, cancel: cancel, mover: lp.slots[s].mover}
	lp.spawn(func() { lp.g.work(ctx, s) })
}

// cancel cancels the campaign for shard s, or its retry.
func (lp *loop) cancel(s int) {
	sl := &lp.slots[s]
	if sl.backoff {
		sl.phase, sl.backoff = idle, false
		return
	}
	sl.cancel()
}

// campaignEnded takes the end of a campaign for s that did not win.
func (lp *loop) campaignEnded(s int, err error, cancelled bool) {
	lp.done()
	lp.slots[s] = slot{mover: lp.slots[s].mover}
	switch {
	case cancelled:
	case errors.Is(err, lease.ErrClosed):
		lp.fail(err)
	default:
		lp.g.opts.Logger.Warn("shard campaign failed; retrying", "group", lp.g.name, "shard", s, "err", err)
		lp.slots[s].phase, lp.slots[s].backoff = campaigning, true
		lp.armRetry()
	}
}

// won takes the leadership of s that its campaign won.
func (lp *loop) won(s int, l *lease.Leadership) {
	sl := &lp.slots[s]
	sl.phase, sl.l = held, l
	lp.g.setOwned(s, true)
	lp.emit(Event{Shard: s, Leadership: l})
}

// lost takes the end of the leadership of s, and of its worker.
func (lp *loop) lost(s int, l *lease.Leadership) {
	lp.done()
	lp.slots[s] = slot{mover: lp.endMove(s, l)}
	lp.g.setOwned(s, false)
	lp.emit(Event{Shard: s, Leadership: l, Released: true, Reason: reason(l.Err())})
}

// endMove stops the handover of s, whose leadership l ended, and returns
// the mover to keep until it reports, or nil. A leadership that ended by
// its handover is not stopped: its HandOver call is passing the key, and
// returns when it is passed or released.
func (lp *loop) endMove(s int, l *lease.Leadership) *mover {
	mv := lp.slots[s].mover
	switch {
	case mv == nil:
	case mv.cancel == nil:
		return nil // a retry of a handover of the leadership that ended
	case !errors.Is(l.Err(), lease.ErrHandover):
		mv.cancel()
	}
	return mv
}

// move starts handing s over to member to.
func (lp *loop) move(s int, to string) {
	ctx, cancel := context.WithCancel(context.Background())
	sl := &lp.slots[s]
	mv := &mover{to: to, cancel: cancel}
	sl.mover = mv
	l := sl.l
	lp.spawn(func() { lp.g.move(ctx, s, l, mv) })
}

// stopMove stops the handover of s: at once if it waits for its retry.
func (lp *loop) stopMove(s int) {
	mv := lp.slots[s].mover
	if mv.cancel == nil {
		lp.slots[s].mover = nil
		return
	}
	mv.cancel()
}

// moved takes the outcome of mv, a handover of s, which took d. Only the
// slot's own mover is cleared: a report of an earlier one (of a leadership
// that ended) leaves the handover under way alone, so that no shard has two.
func (lp *loop) moved(s int, l *lease.Leadership, mv *mover, err error, cancelled bool, d time.Duration) {
	lp.done()
	sl := &lp.slots[s]
	if sl.mover == mv {
		sl.mover = nil
	}
	to := mv.to
	log := lp.g.opts.Logger
	switch {
	case err == nil:
		lp.g.opts.Metrics.HandedOver(lp.g.name, d)
		log.Info("shard moved", "group", lp.g.name, "shard", s, "from", lp.me, "to", to, "token", l.Token)
	case cancelled:
	case sl.l == l && l.Valid() == nil && sl.mover == nil:
		log.Warn("shard handover failed; retrying", "group", lp.g.name, "shard", s, "to", to, "err", err)
		sl.mover = &mover{to: to}
		lp.armRetry()
	default:
		log.Warn("shard handover did not hand the key over", "group", lp.g.name, "shard", s, "to", to, "err", err)
		if sl.l == l && sl.mover == nil {
			// l ended and its worker's report (lost) is on its way: a
			// handover of l started meanwhile would fail at once, and
			// again, each time with a plan over every shard. Wait for
			// the report (or the retry timer) as for a retry.
			sl.mover = &mover{to: to}
		}
	}
}

// armRetry arms the retry timer, if it is not armed: failed campaigns and
// handovers are tried again after the elector's RetryInterval.
func (lp *loop) armRetry() {
	lp.retry.Stop()
	lp.retry.Reset(lp.g.e.Options().RetryInterval)
}

// retryAll clears every wait for a retry, so that the plan acts again.
func (lp *loop) retryAll() {
	for s := range lp.slots {
		sl := &lp.slots[s]
		if sl.backoff {
			sl.phase, sl.backoff = idle, false
		}
		if sl.mover != nil && sl.mover.cancel == nil {
			sl.mover = nil
		}
	}
}
