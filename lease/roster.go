package lease

import (
	"context"
	"errors"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// The elector's candidate records (backends.Session.Join). The core decides
// every write: when a campaign joins its election's roster, writes its
// record again with a new value, leaves, or deletes the record in the
// same write as its key (Action.Leave), and when a failed write is made
// again (see lease/internal/core's candidacy.go). The elector performs
// each Join and Leave as one call, bounded by RequestTimeout, and reports
// its outcome; a retry's wait is the core's timer, not a call's.

// join writes the record the core's Join a asks for.
func (e *LeaseElector) join(a core.Action) {
	s, v := e.session(a.Epoch), e.candidateRecord(a)
	e.call(inSlot, func(ctx context.Context) {
		_, err := s.Join(ctx, a.Election, v)
		e.logRecord(ctx, a.Election, "candidate record not written", err)
		e.post(func(now time.Time) { e.m.Joined(now, a.Election, a.Op, err) })
	})
}

// leave deletes the record, the core's Leave a.
func (e *LeaseElector) leave(a core.Action) {
	s := e.session(a.Epoch)
	e.call(inSlot, func(ctx context.Context) {
		err := s.Leave(ctx, a.Election)
		e.logRecord(ctx, a.Election, "candidate record not deleted", err)
		e.post(func(now time.Time) { e.m.Left(now, a.Election, a.Op, err) })
	})
}

// sweep reads the key, or deletes it at a.Token from its session: the
// core's Sweep a, for a key bound to the session with no campaign for it:
// passed to a campaign whose record was deleted since, or made by a
// create of unknown outcome that landed late.
func (e *LeaseElector) sweep(a core.Action) {
	s := e.session(a.Epoch)
	e.call(inSlot, func(ctx context.Context) {
		var rec backends.Record
		var err error
		switch {
		case a.Token == 0:
			rec, err = e.store.Get(ctx, a.Election)
		case s == nil:
			err = backends.ErrSessionExpired // the key went with it
		default:
			// passed after the campaign ended, or made by a create that
			// timed out and landed late
			e.log.Info("deleting a key bound to this session with no campaign for it", "election", a.Election, "token", a.Token)
			_, err = s.End(ctx, backends.End{Election: a.Election, Token: a.Token})
		}
		if errors.Is(err, backends.ErrNotFound) || errors.Is(err, backends.ErrSessionExpired) {
			// gone, another's, or gone with the session: the sweep's end,
			// not a failure
			e.log.Debug("the key to sweep was gone or another's", "election", a.Election, "token", a.Token)
		} else {
			e.logRecord(ctx, a.Election, "sweep for a key bound to this session with no campaign failed", err)
		}
		e.post(func(now time.Time) { e.m.Swept(now, a.Election, a.Op, rec, err) })
	})
}

// leftWith reports the outcome err of a, a Delete or Pass, as that of the
// record's Leave too if a carried it (Action.Leave); before a's own.
func (e *LeaseElector) leftWith(now time.Time, a core.Action, err error) {
	if a.Leave {
		e.m.Left(now, a.Election, a.Op, err)
	}
}

func (e *LeaseElector) logRecord(ctx context.Context, election, what string, err error) {
	if err != nil {
		e.log.Log(ctx, e.levelOf(err), what, "election", election, "err", err)
	}
}

// candidateRecord is the value of the record a Join writes. On the loop
// goroutine.
func (e *LeaseElector) candidateRecord(a core.Action) []byte {
	follows := true // every leader follows its roster in the set
	return encodeCandidate(candidateValue{Identity: e.opts.Identity, Priority: e.opts.Priority,
		Labels: e.labelsOf(a.Election), Joined: joinedAt(a.Joined), NoLead: e.opts.NoLead, Damped: a.Damped, Queue: a.Queue,
		Wakes: a.Queue != 0 && e.store.Capabilities().Passes, Follows: &follows})
}

// followsRoster reports whether a leader of this elector follows its
// roster (FollowRoster, Preempt), and so sees handover requests.
func (e *LeaseElector) followsRoster() bool { return e.opts.FollowRoster || e.opts.Preempt }
