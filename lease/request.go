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
	cur, err := e.Leader(ctx, election)
	if err != nil {
		return LeaderInfo{}, fmt.Errorf("lease: request handover: %w", err)
	}
	cs, err := e.Candidates(ctx, election)
	if err != nil {
		return fail(err)
	}
	if !requestable(cs, cur.Session, to) {
		return fail(fmt.Errorf("no candidate %q that may lead waits: %w", to, ErrNoCandidate))
	}
	if leaderIgnoresRequests(cs, cur.Session) {
		return fail(fmt.Errorf("the leader %q does not follow its candidate list (Options.FollowRoster or Preempt), "+
			"so it cannot see a request; its own Leadership.HandOver can hand over: %w", cur.Identity, errors.ErrUnsupported))
	}
	sid, err := e.AwaitSession(ctx)
	if err != nil {
		return fail(err)
	}
	s := e.sessionByID(sid)
	if s == nil {
		return fail(fmt.Errorf("the session %s ended: %w", sid, backends.ErrSessionExpired))
	}
	v := encodeCandidate(candidateValue{Identity: e.opts.Identity, NoLead: true,
		Joined: joinedAt(time.Now()), Request: &handoverRequest{Handover: to}})
	if _, err := e.roster.Join(ctx, s, election, v); err != nil {
		return fail(err)
	}
	defer func() {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.opts.RequestTimeout)
		defer cancel()
		_ = e.roster.Leave(lctx, s, election)
	}()
	info, err := e.awaitNewTerm(ctx, election, uint64(cur.Token), to)
	if err != nil {
		return fail(err)
	}
	return info, nil
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
