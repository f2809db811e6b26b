package lease

import (
	"context"
	"errors"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// The elector's candidate records (backends.Roster). A campaign joins its
// election's roster once its first outcome is known: it won, or the key
// was taken (in queue mode: once its queue entry is made, whose token the
// record then carries). That is one write per campaign and session; a
// record is rewritten only when the core asks (publish), and deleted when
// the campaign or leadership ends. Records go with their session anyway.
//
// All of it is owned by the loop goroutine. The writes of one election go
// one at a time, each after the last one's outcome, so that a Leave never
// overtakes the Join it undoes.

// rosterEntry is the state of the elector's record in one election's
// roster.
type rosterEntry struct {
	camp *candidacy       // the campaign's candidacy; nil: it ended
	s    backends.Session // the session of the record written, or perhaps written; nil: none
	gen  uint64           // camp's generation last written, or tried
	busy bool             // a Join or Leave in flight
}

// candidacy is what a campaign publishes in its record.
type candidacy struct {
	s      backends.Session // the session it stands on; nil: not yet joined
	queue  uint64           // its queue entry's token; 0: none
	joined time.Time        // when it first joined, for display
	damped bool
	gen    uint64 // bumped at each change that asks for a write
}

// candidacy returns election's candidacy, made if needed.
func (e *LeaseElector) candidacy(election string) *candidacy {
	r := e.rosters[election]
	if r == nil {
		r = &rosterEntry{}
		e.rosters[election] = r
	}
	if r.camp == nil {
		r.camp = &candidacy{}
	}
	return r.camp
}

// stand joins election's roster on the live session, with the queue
// entry's token queue (0: none), if the campaign has not joined on it yet.
// Called when a campaign's outcome is known.
func (e *LeaseElector) stand(election string, queue uint64) {
	s := e.liveSession()
	if e.roster == nil || s == nil || !e.m.Active(election) {
		return
	}
	c := e.candidacy(election)
	if c.s == s && (queue == 0 || c.queue == queue) {
		return // joined on this session: one write per campaign
	}
	now := time.Now()
	if c.joined.IsZero() {
		c.joined = now
	}
	c.s, c.queue, c.gen = s, queue, e.nextGen()
	c.damped = now.Before(e.m.DampedUntil(election))
	e.reconcile(election)
}

// restand joins, on a new session, the roster of every campaign that
// joined on an older one: its record went with that session. One that
// waits in line joins once its new entry is made (the core's Queued).
func (e *LeaseElector) restand() {
	s := e.liveSession()
	for election, r := range e.rosters {
		if r.camp != nil && r.camp.s != nil && r.camp.s != s && !e.m.InLine(election) {
			e.stand(election, 0)
		}
	}
}

// publish rewrites the campaign's record for election with its damped
// state, best effort; the core's Publish action. A campaign that has not
// joined yet carries it into its join.
func (e *LeaseElector) publish(election string, damped bool) {
	if e.roster == nil || !e.m.Active(election) {
		return
	}
	c := e.candidacy(election)
	if c.damped == damped && c.s != nil {
		return
	}
	c.damped = damped
	if c.s != nil {
		c.gen = e.nextGen()
		e.reconcile(election)
	}
}

// leaveRoster ends election's candidacy and deletes its record.
func (e *LeaseElector) leaveRoster(election string) {
	if r := e.rosters[election]; r != nil {
		r.camp = nil
		e.reconcile(election)
	}
}

// foldLeave readies the Delete (or Pass) of election's key on s to delete
// the campaign's record too (backends.LeavingDeleter): every Delete and
// every Pass that lands ends its campaign, whose record would otherwise go
// in a second write just after, beside the successor's create. It reports
// whether it did so: the store can, the record is on s and no write of it
// is in flight. The record then counts as gone until leftWith says
// otherwise.
func (e *LeaseElector) foldLeave(election string, s backends.Session) bool {
	r := e.rosters[election]
	if _, ok := e.store.(backends.LeavingDeleter); !ok || r == nil || r.busy || s == nil || r.s != s {
		return false
	}
	r.busy, r.s = true, nil
	return true
}

// leftWith takes the outcome err of a Delete or Pass that foldLeave
// readied: if it failed, nothing changed, and the record on s is deleted
// on its own once the campaign ends, as without the fold. A key deleted
// or passed with its record needs no dropPassed: no Pass to s can have
// landed while s held the key, nor after the record went.
func (e *LeaseElector) leftWith(election string, s backends.Session, err error) {
	r := e.rosters[election]
	if r == nil {
		return
	}
	r.busy = false
	if err != nil && r.s == nil {
		r.s = s
	}
	e.reconcile(election)
}

func (e *LeaseElector) nextGen() uint64 {
	e.gens++
	return e.gens
}

// reconcile makes the next write of election's record, if one is due and
// none is in flight.
func (e *LeaseElector) reconcile(election string) {
	r := e.rosters[election]
	switch {
	case r == nil || r.busy:
	case r.camp != nil && r.camp.s != nil && r.camp.gen != r.gen:
		r.busy, r.gen, r.s = true, r.camp.gen, r.camp.s
		s, v := r.s, e.candidateRecord(r.camp)
		e.rosterCall(election, "candidate record not written", func(ctx context.Context) error {
			_, err := e.roster.Join(ctx, s, election, v)
			if e.retried(err) {
				e.post(func(time.Time) { r.gen = 0 }) // write it again
			}
			return err
		})
	case r.camp == nil && r.s != nil && r.s == e.liveSession():
		s := r.s
		r.busy, r.s = true, nil
		e.rosterCall(election, "candidate record not deleted", func(ctx context.Context) error {
			err := e.roster.Leave(ctx, s, election)
			if err == nil {
				e.dropPassed(ctx, s, election)
			}
			if e.retried(err) {
				// A record left behind would stay a handover's target
				// until the session ends: delete it again.
				e.post(func(time.Time) {
					if r.camp == nil && r.s == nil {
						r.s = s
					}
				})
			}
			return err
		})
	case r.camp == nil:
		delete(e.rosters, election) // a record on an older session went with it
	}
}

// rosterCall runs fn, one attempt bounded by RequestTimeout, and goes on
// with election's next write when it is done.
func (e *LeaseElector) rosterCall(election, what string, fn func(context.Context) error) {
	e.call(true, func(ctx context.Context) {
		err := fn(ctx)
		if err != nil {
			e.log.Log(ctx, e.levelOf(err), what, "election", election, "err", err)
		}
		e.post(func(time.Time) {
			if r := e.rosters[election]; r != nil {
				r.busy = false
				e.reconcile(election)
			}
		})
	})
}

// candidateRecord is the value of c's record. On the loop goroutine.
func (e *LeaseElector) candidateRecord(c *candidacy) []byte {
	_, inSet := e.rosterSet()
	follows := e.followsRoster() || inSet
	return encodeCandidate(candidateValue{Identity: e.opts.Identity, Priority: e.opts.Priority,
		Labels: e.opts.Labels, Joined: joinedAt(c.joined), NoLead: e.opts.NoLead, Damped: c.damped, Queue: c.queue,
		Wakes: c.queue != 0 && e.wakesOnPass(), Takes: e.takesPass(), Follows: &follows})
}

// followsRoster reports whether a leader of this elector follows its
// roster (FollowRoster, Preempt), and so sees handover requests.
func (e *LeaseElector) followsRoster() bool { return e.opts.FollowRoster || e.opts.Preempt }

// takesPass reports whether this elector takes up a key passed to it: on
// every store that passes keys (backends.Passer).
func (e *LeaseElector) takesPass() bool {
	_, passes := e.store.(backends.Passer)
	return passes
}

// wakesOnPass reports whether this elector's wait in line wakes when the
// key is passed to it or released naming it: it waits in the WatchSet of
// a store that passes keys or marks their release, whose WaitGone
// answers either (backends.Passer, backends.MarkedDeleter).
func (e *LeaseElector) wakesOnPass() bool {
	_, passes := e.store.(backends.Passer)
	_, marks := e.store.(backends.MarkedDeleter)
	return (passes || marks) && e.watcher != nil
}

// retried reports whether a roster write that failed with err is to be
// made again, after it waited RetryInterval (with jitter): not if it
// succeeded, the store refused it for good, or the session is gone (its
// record went with it; a new session's campaign writes its own).
func (e *LeaseElector) retried(err error) bool {
	if err == nil || core.Permanent(err) || errors.Is(err, backends.ErrSessionExpired) {
		return false
	}
	e.pause(e.ctx, jitter(e.opts.RetryInterval))
	return true
}
