package lease

import (
	"context"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// Every leader follows its election's roster through the elector's
// WatchSet (backends.WatchRoster), whatever FollowRoster says: a
// List when it wins and after each change, and no
// watch, goroutine or request of its own while the roster stays as it
// is. So HandOver finds its target without a read, requests made with
// RequestHandover reach it, and a resign passes the key on to the
// successor as of the last change, not as of the win.

// rosterWatch is a held election's roster, followed in the WatchSet: the
// steps a core.Follower decides, carried out on the loop goroutine,
// which owns it.
type rosterWatch struct {
	l     *Leadership
	f     *core.Follower[rosterSeen]
	op    uint64      // the Follower's step in flight
	tag   uint64      // its WatchRoster request in the set; 0: none
	timer *time.Timer // ends a pause; nil: none
}

// rosterSeen is what a rosterWatch's Follower keeps of the roster it
// read: its digest and revision, which a WatchRoster request takes, and not the
// records, which go to the core; so a leader following its roster costs
// the elector a few hundred bytes per election, not a copy of its records.
type rosterSeen struct {
	digest uint64 // backends.RosterDigest of the records
	rev    uint64
}

// followInSet starts following election's roster in the set for the
// leadership l.
func (e *LeaseElector) followInSet(election string, l *Leadership) {
	rw := &rosterWatch{l: l, f: core.NewFollower[rosterSeen](e.opts.config())}
	e.entry(election).roster = rw
	e.stepRoster(time.Now(), election, rw)
}

// stepRoster takes rw's next step: a List, a WatchRoster request, a pause before
// a List after an error, or the end, for a permanent error.
func (e *LeaseElector) stepRoster(now time.Time, election string, rw *rosterWatch) {
	if e.of(election).roster != rw {
		return
	}
	s := rw.f.Next(now)
	rw.op = s.Op
	switch s.Kind {
	case core.FollowStop:
		e.forget(election, unfollowed)
		e.dropTargets(election, errUnfollowed)
		e.log.Error("roster refused by the store", "election", election, "err", s.Err)
	case core.FollowPause:
		rw.timer = time.AfterFunc(time.Until(s.At), func() {
			e.post(func(now time.Time) { e.stepRoster(now, election, rw) })
		})
	case core.FollowRead:
		e.listRoster(election, rw, s.Op)
	case core.FollowWait:
		e.tags++
		rw.tag = e.tags
		e.watchSet().Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: rw.tag, Known: backends.Record{Election: election, Revision: s.Known.rev}, Digest: s.Known.digest})
	}
}

// listRoster reads election's roster for rw's step op, in one of the
// elector's slots for calls (maxElectionCalls), as readSuccessors did:
// a thousand elections won at once do not send a thousand reads at once.
func (e *LeaseElector) listRoster(election string, rw *rosterWatch, op uint64) {
	e.call(inSlot, func(ctx context.Context) {
		recs, rev, err := e.store.List(ctx, election)
		e.post(func(now time.Time) { e.rosterRead(now, election, rw, op, rosterAt{recs: recs, rev: rev}, err) })
	})
}

// rosterChanged takes the set's answer c to a WatchRoster request: the roster is
// read again, for the step that asked, or the error ends the step.
func (e *LeaseElector) rosterChanged(now time.Time, c backends.Change) {
	rw := e.of(c.Election).roster
	if rw == nil || rw.tag != c.Tag {
		return
	}
	rw.tag = 0
	if c.Err != nil {
		e.rosterRead(now, c.Election, rw, rw.op, rosterAt{}, c.Err)
		return
	}
	e.listRoster(c.Election, rw, rw.op)
}

// rosterRead reports the outcome of rw's step op to its Follower, gives
// a roster read to the core while rw's leadership holds the election,
// and takes the next step.
func (e *LeaseElector) rosterRead(now time.Time, election string, rw *rosterWatch, op uint64, r rosterAt, err error) {
	if e.of(election).roster != rw {
		return
	}
	seen := rosterSeen{digest: backends.RosterDigest(r.recs), rev: r.rev}
	if rw.f.Done(now, op, seen, err) && e.holds(rw.l) {
		e.m.Roster(now, election, coreCandidates(r.recs))
		e.answerTargets(election)
	}
	e.stepRoster(now, election, rw)
}

// unfollow stops following election's roster in the set, if it does.
func (e *LeaseElector) unfollow(election string) {
	rw := e.of(election).roster
	if rw == nil {
		return
	}
	e.forget(election, unfollowed)
	if rw.timer != nil {
		rw.timer.Stop()
	}
	if e.set != nil && rw.tag != 0 {
		e.set.Stop(election, backends.WatchRoster)
	}
}

// follows reports whether the leader of election follows its roster:
// with FollowRoster or Preempt, or in the set. On the loop goroutine.
func (e *LeaseElector) follows(election string) bool {
	return e.followsRoster() || e.of(election).roster != nil
}

// unfollowed forgets the roster followed in the set.
func unfollowed(el *election) { el.roster = nil }
