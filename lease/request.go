package lease

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// RequestHandover asks the leader of election, from outside it, to hand
// the election over to the candidate named by to (identity or session
// ID, as Candidates lists them), or to the next in line if to is empty,
// and waits until a new term leads: the named candidate's, if to is set.
// It returns that term's leader.
//
// The request is a record in the election's candidate list bound to this
// elector's session, so it dies with the requester; it is removed when
// RequestHandover returns. It is cooperative: the leader honours it only
// if it follows its candidate list (Options.FollowRoster or Preempt), at
// once, as Leadership.HandOver does. RequestHandover fails with an error
// wrapping ErrNoLeader if the election has no leader, ErrNoCandidate if
// no candidate that may lead (and, with to, of that name) waits, one that
// is damped or superseded (see Candidate) not counting,
// errors.ErrUnsupported, at once, if the leader's candidate record says
// that it does not follow its candidate list (a leader of a version
// that does not say waits as one that does), and ctx's error if the
// handover does not happen before ctx ends.
//
// It fails at once with ErrBusy, writing nothing, while this elector
// campaigns in or leads election (or still deletes its candidate record
// there), or another RequestHandover of election runs on it; and Campaign
// and Run of election fail with ErrBusy while this one runs. A request
// record and a candidate record of one session are one record in the
// store, so either would overwrite the other, and the request's removal
// would delete the candidacy. ErrBusy, not an error of its own: it is
// what this elector already says when the election is in use on it, and
// the remedy is the same, another elector. A leader hands over with
// Leadership.HandOver; a waiting candidate asks from another elector or
// session (`leasehold handover`).
func (e *LeaseElector) RequestHandover(ctx context.Context, election, to string) (LeaderInfo, error) {
	if err := e.check("request handover"); err != nil {
		return LeaderInfo{}, err
	}
	fail := func(err error) (LeaderInfo, error) {
		return LeaderInfo{}, fmt.Errorf("lease: request handover of %q: %w", election, err)
	}
	if err := backends.ValidateElection(election); err != nil {
		return fail(fmt.Errorf("%v: %w", err, ErrInvalidOption))
	}
	if e.roster == nil {
		return LeaderInfo{}, e.noRoster("request handover", election)
	}
	if err := e.beginRequest(election); err != nil {
		return fail(err)
	}
	defer e.endRequest(election)
	cur, err := e.Leader(ctx, election)
	if err != nil {
		return LeaderInfo{}, fmt.Errorf("lease: request handover: %w", err)
	}
	if err := e.checkRequest(ctx, election, cur, to); err != nil {
		return fail(err)
	}
	s, err := e.joinRequest(ctx, election, to)
	if err != nil {
		return fail(err)
	}
	defer e.leaveRequest(ctx, s, election)
	info, err := e.awaitNewTerm(ctx, election, uint64(cur.Token), to)
	if err != nil {
		return fail(err)
	}
	return info, nil
}

// checkRequest says why a request to hand election over from cur to to
// is not to be made, or returns nil.
func (e *LeaseElector) checkRequest(ctx context.Context, election string, cur LeaderInfo, to string) error {
	cs, err := e.Candidates(ctx, election)
	if err != nil {
		return err
	}
	if !requestable(cs, cur.Session, to) {
		return fmt.Errorf("%s: %w", noTarget(to), ErrNoCandidate)
	}
	if leaderIgnoresRequests(cs, cur.Session) {
		return fmt.Errorf("the leader %q does not follow its candidate list (Options.FollowRoster or Preempt), "+
			"so it cannot see a request; its own Leadership.HandOver can hand over: %w", cur.Identity, errors.ErrUnsupported)
	}
	return nil
}

// joinRequest writes the request record for a handover of election to
// to, on the live session, which it returns.
func (e *LeaseElector) joinRequest(ctx context.Context, election, to string) (backends.Session, error) {
	sid, err := e.AwaitSession(ctx)
	if err != nil {
		return nil, err
	}
	s := e.sessionByID(sid)
	if s == nil {
		return nil, fmt.Errorf("the session %s ended: %w", sid, backends.ErrSessionExpired)
	}
	v := encodeCandidate(candidateValue{Identity: e.opts.Identity, NoLead: true,
		Joined: joinedAt(time.Now()), Request: &handoverRequest{Handover: to}})
	if _, err := e.roster.Join(ctx, s, election, v); err != nil {
		return nil, err
	}
	return s, nil
}

// leaveRequest deletes the request record of election on s, one attempt
// bounded by RequestTimeout, after ctx ended too.
func (e *LeaseElector) leaveRequest(ctx context.Context, s backends.Session, election string) {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.opts.RequestTimeout)
	defer cancel()
	_ = e.roster.Leave(lctx, s, election)
}

// beginRequest marks a RequestHandover of election as running on this
// elector, or says why it may not run (see RequestHandover): on the loop
// goroutine, as Campaign checks and registers, so that neither misses
// the other.
func (e *LeaseElector) beginRequest(election string) error {
	var why string
	if !e.do(func(time.Time) {
		if why = e.requestBusy(election); why == "" {
			e.requests[election] = true
		}
	}) {
		return ErrClosed
	}
	if why != "" {
		return fmt.Errorf("%s: %w", why, ErrBusy)
	}
	return nil
}

// requestBusy says why a RequestHandover of election may not run now, or
// returns "". On the loop goroutine.
func (e *LeaseElector) requestBusy(election string) string {
	switch {
	case e.requests[election]:
		return "another RequestHandover of it runs on this elector"
	case e.m.Active(election):
		return "this elector campaigns in or leads it (a leader hands over with Leadership.HandOver; " +
			"a waiting candidate asks from another elector, as leasehold handover does)"
	case e.rosters[election] != nil:
		return "this elector's candidate record in it is still being written or deleted"
	}
	return ""
}

// endRequest marks the RequestHandover of election as ended, once its
// record is gone.
func (e *LeaseElector) endRequest(election string) {
	e.do(func(time.Time) { delete(e.requests, election) })
}

// requestable reports whether a candidate in cs other than the leader
// (session leader) may lead, is not damped and matches to (any, if to is
// empty).
func requestable(cs []Candidate, leader, to string) bool {
	for _, c := range cs {
		if c.Session != leader && c.MayLead && !c.Damped && !c.Superseded && (to == "" || c.Identity == to || c.Session == to) {
			return true
		}
	}
	return false
}

// leaderIgnoresRequests reports whether the record in cs of the leader's session says
// that it does not see handover requests.
func leaderIgnoresRequests(cs []Candidate, leader string) bool {
	i := slices.IndexFunc(cs, func(c Candidate) bool { return c.Session == leader && !c.Requester })
	return i >= 0 && cs[i].ignoresRequests
}

// awaitNewTerm follows election's leader until a term other than the one
// of token leads, named by to if to is set, and returns it.
func (e *LeaseElector) awaitNewTerm(ctx context.Context, election string, token uint64, to string) (LeaderInfo, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := e.Observe(ctx, election)
	if err != nil {
		return LeaderInfo{}, err
	}
	for info := range ch {
		switch {
		case info.Err != nil:
			return LeaderInfo{}, info.Err
		case info.HasLeader() && uint64(info.Token) != token &&
			(to == "" || info.Identity == to || info.Session == to):
			return info, nil
		}
	}
	return LeaderInfo{}, context.Cause(ctx)
}

// sessionByID returns the elector's session with the given ID, or nil.
func (e *LeaseElector) sessionByID(id string) backends.Session {
	var s backends.Session
	e.do(func(time.Time) {
		if ls := e.liveSession(); ls != nil && ls.ID() == id {
			s = ls
		}
	})
	return s
}
