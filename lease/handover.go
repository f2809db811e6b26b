package lease

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// A handover passes a held election to a named candidate (see
// Leadership.HandOver and Election policies in the package doc). The policy is the core's; this
// file carries out its actions: Yield ends the application's leadership
// while the key stays held, Pass hands the key to the target in one
// write, and the core's Released ends it (after a Delete, if the pass
// could not be made).

// yield ends the leadership of election with ErrHandover, the core's
// Yield: the key stays held until the application resigns (Run does, when
// fn returns) or the core's yield timeout passes.
func (e *LeaseElector) yield(election, cause string) {
	l := e.of(election).held
	if l == nil {
		return
	}
	l.end(ErrHandover)
	e.policyMetrics().Handover(election, cause)
	e.log.Info("leadership handed over", "election", election, "token", l.Token, "cause", cause)
}

// report runs f on the loop goroutine from a goroutine of its own: for an
// action whose outcome is known without a store call, as the machine
// takes no report while its actions are carried out.
func (e *LeaseElector) report(f func(now time.Time)) {
	e.call(noSlot, func(context.Context) { e.post(f) })
}

// handing returns the leadership of election that a handover ends: held
// (yielded), or parting (a resign that passes the key on), or nil. A
// resign's handover, with no Yield, is counted here, on its first action.
func (e *LeaseElector) handing(a core.Action) *Leadership {
	if a.Cause == core.CauseResign {
		e.policyMetrics().Handover(a.Election, CauseResign)
	}
	el := e.of(a.Election)
	if el.held != nil {
		return el.held
	}
	return el.parting
}

// unpart forgets an ended leadership whose key was being let go: no
// Released follows, or it came.
func unpart(el *election) { el.parting = nil }

// pass hands the key to session a.To in one write, the core's Pass
// (backends.Capabilities.Passes). The key's value names the target's identity,
// as its own Create would, and the time of the pass by this elector's
// clock.
func (e *LeaseElector) pass(a core.Action, s backends.Session) {
	e.stopWatch(a.Election)
	e.handing(a)
	if s == nil || !e.store.Capabilities().Passes {
		e.report(func(now time.Time) {
			e.leftWith(now, a, errors.ErrUnsupported)
			e.m.Passed(now, a.Election, a.Op, errors.ErrUnsupported)
		})
		return
	}
	req := backends.End{Election: a.Election, Token: a.Token, Leave: a.Leave,
		To: &backends.Target{Session: a.To, Entry: a.Queue, Value: encodeValue(a.ToID, time.Now())}}
	e.call(inSlot, func(ctx context.Context) {
		_, err := s.End(ctx, req)
		if err != nil {
			e.log.Debug("handover pass not made", "election", a.Election, "to", a.To, "err", err)
		}
		e.post(func(now time.Time) {
			e.leftWith(now, a, err)
			e.m.Passed(now, a.Election, a.Op, err)
		})
	})
}

// HandOver ends the leadership and gives the election to the candidate
// named by to (its identity or session ID, as Candidates lists them), or,
// if to is empty, to the next in succession order: the highest priority
// that may lead and is not damped, first in line among equals. A record
// that a later record of the same identity supersedes (its elector gave
// that session up) is never the target. The leadership's context is
// cancelled with ErrHandover at once. Then the leader passes the key to
// the target in one write (backends.Capabilities.Passes: etcd,
// ZooKeeper, Consul): the key is bound to the target's session, with a
// new fencing token, and the target, woken where it waits (on the key
// or in line), leads. No other waiter can take the key in between. If
// the pass cannot be made, the key is deleted and the normal election
// resumes (see Election policies in the package doc).
//
// The target is looked up in the roster the leader follows (on a store
// whose watch set carries rosters, as etcd's, ZooKeeper's and Consul's
// do, or with FollowRoster or Preempt), a notification old, or, if that
// lacks it or the leader follows none, in one read then. HandOver waits
// until the key is passed or released, or ctx ends (the handover goes
// on). It fails with an error wrapping ErrNoCandidate, and keeps the
// leadership, if no such candidate is in the election's roster; and with
// one wrapping ErrLost (and the cause) if the leadership has already
// ended: of calls that race on one Leadership, one hands over and the
// others get that error (the cause ErrHandover), as do those that race
// with a loss.
//
// Once the handover has begun, the leadership has ended (ErrHandover)
// whatever HandOver returns, and:
//   - nil: a write of this leader passed the key to the target, which
//     holds it. The target leads unless it fails first; then the normal
//     election resumes.
//   - an error wrapping ErrLost and ErrNotHandedOver: no write of this
//     leader is known to have handed the key over. The key was deleted
//     (the pass was not made: the target was gone, it waited in line
//     where it would not wake, or the store refused or could not be
//     reached), or it goes with the leader's session (its renewals failed: the error wraps
//     ErrRenewDeadline or backends.ErrSessionExpired), or the elector
//     closed. The normal election decides who leads next: the target by
//     an ordinary campaign, or any other candidate. If an answer was
//     lost the write may still have landed, and the target leads as on
//     nil.
//   - an error wrapping ctx's: the handover goes on; it is logged if it
//     does not hand the key over, not returned.
func (l *Leadership) HandOver(ctx context.Context, to string) error {
	if l.e == nil {
		return fmt.Errorf("lease: hand over %q: %w", l.Election, ErrNotLeadership)
	}
	e := l.e
	w := make(chan error, 1)
	started, err := l.startHandOver(to, nil, w) // the roster it follows, if it does
	if !started && err == nil {
		recs, _, lerr := e.store.List(ctx, l.Election)
		if lerr != nil {
			return fmt.Errorf("lease: hand over %q: %w", l.Election, lerr)
		}
		if recs == nil {
			recs = []backends.Record{} // read: an empty roster, not none
		}
		started, err = l.startHandOver(to, recs, w)
	}
	switch {
	case errors.Is(err, errClosed):
		return handedOver(l.Election, fmt.Errorf("%w: %w", ErrNotHandedOver, ErrClosed))
	case !started:
		return err
	}
	select {
	case err := <-w:
		return err
	case <-ctx.Done():
		return fmt.Errorf("lease: hand over %q: %w", l.Election, ctx.Err())
	}
}

// handedOver returns what a HandOver of election returns once the core
// released it with err (core.Released): nil if the key was handed over,
// else an error wrapping ErrLost and err.
func handedOver(election string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("lease: hand over %q: %w: %w", election, ErrLost, err)
}

// noTarget says that no candidate to, or none at all if to is empty,
// may take a handover.
func noTarget(to string) string {
	if to == "" {
		return "no other candidate that may lead waits"
	}
	return fmt.Sprintf("no other candidate %q that may lead waits", to)
}

// errClosed says the elector closed before a handover could start.
var errClosed = errors.New("elector closed")

// startHandOver starts l's handover to to, on the loop goroutine, with
// the roster the core has for l's election, after replacing it with recs
// if recs is not nil. With recs nil it does so only if the leader follows
// its roster (see follows). It reports whether it started. If not, err
// says why, or is nil if recs was nil and the leader follows no roster or
// the core's lacks the target: the caller reads the roster and tries
// again. w receives the handover's end.
func (l *Leadership) startHandOver(to string, recs []backends.Record, w chan error) (started bool, err error) {
	e := l.e
	if !e.do(func(now time.Time) {
		switch {
		case !e.holds(l) || l.Err() != nil: // ended, perhaps by a HandOver that won the race
			err = fmt.Errorf("lease: hand over %q: %w", l.Election, l.Err())
			return
		case recs == nil && !e.follows(l.Election):
			return
		case recs != nil:
			e.m.Roster(now, l.Election, coreCandidates(recs))
		}
		switch {
		case e.m.HasTarget(l.Election, to):
		case recs != nil:
			err = fmt.Errorf("lease: hand over %q: %s: %w", l.Election, noTarget(to), ErrNoCandidate)
			return
		default:
			return
		}
		e.callsOf(l.Election).handover = w
		e.m.HandOver(now, l.Election, to)
		e.m.Resign(now, l.Election) // the caller has let go already
		started = true
	}) {
		return false, errClosed
	}
	return started, err
}

// freshRoster reads the roster of l's election for a resign, if l's
// elector follows it (FollowRoster, Preempt): the resign then passes the
// key to the top of the succession order as it is now, not as the
// follower last saw it, a round trip ago. It returns nil otherwise, or if
// the read fails (the resign then decides on what it has).
func (e *LeaseElector) freshRoster(ctx context.Context, l *Leadership) []core.Candidate {
	if !e.followsRoster() || l.Err() != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
	defer cancel()
	recs, _, err := e.store.List(ctx, l.Election)
	if err != nil {
		return nil
	}
	return coreCandidates(recs)
}
