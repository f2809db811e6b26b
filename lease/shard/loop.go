package shard

import (
	"context"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard/internal/assign"
)

// loop is the state of a group, owned by its one goroutine (run): every
// other goroutine of the group reports to it through Group.inbox.
type loop struct {
	g                      *Group
	me                     string
	slots                  []slot
	members                []assign.Member      // the last roster's
	seen                   map[string]time.Time // when each member was first seen
	refused                map[string]string    // members left out, and why (logged once)
	own                    owners
	joined                 bool // this member was in the roster once
	leaving                bool // Leave began: hand over, campaign for nothing
	abort                  bool // a Leave's ctx ended, or the group failed: resign all
	live                   int  // goroutines started and not yet reported done
	stopMember, stopFollow context.CancelFunc
	wake, retry            *time.Timer
	pending                []Event
}

// slot is what this member has of one shard.
type slot struct {
	phase   phase
	cancel  context.CancelFunc // ends its worker: cancels the campaign, or resigns
	l       *lease.Leadership  // held
	mover   *mover             // a handover under way, or waiting to be retried
	backoff bool               // a failed campaign waits for the retry timer
}

// mover is a handover of a held shard to member to.
type mover struct {
	to     string
	cancel context.CancelFunc // nil: waits for the retry timer
}

// run is the group's goroutine: it starts the membership, then performs
// the plan after each report until the group has ended, and then hands
// the last events to the reader.
func (g *Group) run() {
	lp := &loop{g: g, me: g.e.Identity(), slots: make([]slot, g.opts.Shards), seen: map[string]time.Time{},
		refused: map[string]string{}, wake: stoppedTimer(), retry: stoppedTimer()}
	lp.start()
	leave, abort := g.leave, g.abort
	for !lp.ended() {
		out, next := lp.next()
		select {
		case f := <-g.inbox:
			f(lp)
			lp.drain() // one plan for every report queued meanwhile
		case out <- next:
			lp.pending = lp.pending[1:]
			continue
		case <-leave:
			leave = nil
			lp.beginLeave()
		case <-abort:
			abort = nil
			lp.end(nil)
		case <-lp.wake.C:
			lp.reassign()
		case <-lp.retry.C:
			lp.retryAll()
		}
		lp.replan()
	}
	close(g.done)
	for len(lp.pending) > 0 {
		g.events <- lp.pending[0]
		lp.pending = lp.pending[1:]
	}
	close(g.events)
}

// drain takes every report already in the inbox, without waiting: the
// plan after them is made once, not once per report (a plan looks at
// every shard).
func (lp *loop) drain() {
	for {
		select {
		case f := <-lp.g.inbox:
			f(lp)
		default:
			return
		}
	}
}

func stoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// next returns the events channel and the first pending event, or a nil
// channel if none is pending.
func (lp *loop) next() (chan Event, Event) {
	if len(lp.pending) == 0 {
		return nil, Event{}
	}
	return lp.g.events, lp.pending[0]
}

// start starts the membership: the members campaign and the roster's
// observer.
func (lp *loop) start() {
	var ctx context.Context
	ctx, lp.stopMember = context.WithCancel(context.Background())
	lp.spawn(func() { lp.g.membership(ctx) })
	fctx, stopFollow := context.WithCancel(context.Background())
	lp.stopFollow = stopFollow
	lp.spawn(func() { lp.g.follow(fctx) })
}

// spawn runs f in a goroutine the loop waits for: f's last report must
// call done.
func (lp *loop) spawn(f func()) {
	lp.live++
	go f()
}

func (lp *loop) done() { lp.live-- }

// ended reports whether the group has ended: it left, and every goroutine
// is done.
func (lp *loop) ended() bool { return lp.leaving && lp.live == 0 }

// roster takes a new members roster.
func (lp *loop) roster(cands []lease.Candidate) {
	ms, refused := parseMembers(cands, lp.g.opts.Shards)
	lp.logRefused(refused)
	now := time.Now()
	present := map[string]bool{}
	var anew, gone []string
	for _, m := range ms {
		present[m.ID] = true
		if _, ok := lp.seen[m.ID]; !ok {
			lp.seen[m.ID] = now
			anew = append(anew, m.ID)
		}
	}
	for id := range lp.seen {
		if !present[id] {
			delete(lp.seen, id)
			gone = append(gone, id)
		}
	}
	lp.g.opts.Logger.Debug("shard group roster", "group", lp.g.name, "members", len(ms), "new", anew, "gone", gone)
	lp.members = ms
	if present[lp.me] && !lp.joined {
		lp.joined = true
		lp.g.joined <- nil
	}
	lp.reassign()
}

// logRefused logs each member left out, once per reason.
func (lp *loop) logRefused(refused []refusal) {
	now := map[string]string{}
	for _, r := range refused {
		now[r.identity] = r.why
		if lp.refused[r.identity] != r.why {
			lp.g.opts.Logger.Error("shard group member left out", "group", lp.g.name, "member", r.identity, "reason", r.why)
		}
	}
	lp.refused = now
}

// reassign computes the owners again, and arms the wake timer for the
// next member to settle.
func (lp *loop) reassign() {
	o := lp.g.opts
	var prefer assign.Prefer
	if o.Prefer != nil {
		prefer = assign.Prefer(o.Prefer)
	}
	own, wake := assignment(lp.g.name, o.Shards, prefer, see(lp.members, lp.seen, time.Now()),
		lp.me, lp.leaving, time.Now(), o.Settle)
	lp.own = own
	lp.wake.Stop()
	if wake > 0 {
		lp.wake.Reset(wake)
	}
}

// beginLeave ends the members campaign and turns to handing over.
func (lp *loop) beginLeave() {
	lp.leaving = true
	lp.stopMember()
	lp.reassign()
}

// end ends the group at once: campaigns are cancelled, handovers
// stopped, held shards resigned. err is why, if not a Leave's ctx.
func (lp *loop) end(err error) {
	if err != nil {
		lp.g.mu.Lock()
		if lp.g.err == nil {
			lp.g.err = err
		}
		lp.g.mu.Unlock()
		if !lp.joined {
			lp.joined = true
			lp.g.joined <- err
		}
	}
	lp.leaving, lp.abort = true, true
	lp.stopMember()
	lp.stopFollow()
	for s := range lp.slots {
		sl := &lp.slots[s]
		if sl.cancel != nil {
			sl.cancel()
		}
		if sl.mover != nil && sl.mover.cancel != nil {
			sl.mover.cancel()
		} else {
			sl.mover = nil
		}
		sl.backoff = false
		if sl.phase == campaigning && sl.cancel == nil {
			sl.phase = idle
		}
	}
}

// fail ends the group with err.
func (lp *loop) fail(err error) { lp.end(fmt.Errorf("shard: group %q: %w", lp.g.name, err)) }

// emit queues an event for the reader.
func (lp *loop) emit(ev Event) { lp.pending = append(lp.pending, ev) }
