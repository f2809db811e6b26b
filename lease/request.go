package lease

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// RequestHandover asks the leader of election, from outside it, to hand
// the election over to the candidate named by to (identity or session
// ID, as Candidates lists them), or to the next in line if to is empty,
// and waits until a new term leads: the named candidate's, if to is set.
// It returns that term's leader.
//
// The request is a record in the election's candidate list bound to this
// elector's session, so it dies with the requester; it is removed when
// RequestHandover returns. It is cooperative: every leader follows its
// candidate list through its elector's watch set and honours the request
// at its next safe point, as Leadership.HandOver does; a leader whose
// candidate record says it does not follow its list (no record this
// version writes) cannot see it. RequestHandover fails with an error
// wrapping ErrNoLeader if the election has no leader, ErrNoCandidate if
// no candidate that may lead (and, with to, of that name) waits, one that
// is damped or superseded (see Candidate) not counting,
// errors.ErrUnsupported, at once, if the leader's candidate record says
// that it does not follow its candidate list (a leader of a version
// that does not say waits as one that does), ErrOvertaken as soon as it
// sees a new term that it did not ask for begin after its request was
// made: with to, a term not the named candidate's (another request or
// handover was honoured, or the leader changed); without, a term of the
// same candidate, which lost its term before it handed over (its session
// or key went) and won the key again. A leader honours only requests
// made during its own term, so no leader will honour this one. It fails
// with ctx's error, saying what it saw last, if the handover does not
// happen before ctx ends; before its request was made, it says so.
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
	if err := e.beginRequest(election); err != nil {
		return fail(err)
	}
	defer e.endRequest(election)
	cur, err := e.Leader(ctx, election)
	if err != nil {
		return LeaderInfo{}, fmt.Errorf("lease: request handover: %w", unasked(ctx, err))
	}
	seen, err := e.checkRequest(ctx, election, cur, to)
	if err != nil {
		return fail(unasked(ctx, err))
	}
	s, joined, err := e.joinRequest(ctx, election, to)
	if err != nil {
		return fail(unasked(ctx, err))
	}
	defer e.leaveRequest(ctx, s, election)
	info, err := e.awaitNewTerm(ctx, election, pending{from: cur, joined: joined, to: to, requestSeen: seen})
	if err != nil {
		return fail(err)
	}
	return info, nil
}

// unasked adds to err, if ctx ended, that no request was made.
func unasked(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("ctx ended before the request was made: %w", err)
}

// requestSeen is what a request's check saw in the candidate list: whether
// the leader's record says that it follows its candidate list (not saying
// is an earlier version's, or a leader's with no record), and the
// sessions of the other records.
type requestSeen struct {
	says   bool
	others map[string]bool
}

// checkRequest says why a request to hand election over from cur to to
// is not to be made, or returns nil and what it saw. It reads the roster
// once; the leader would hand over to the candidate core.Target finds.
func (e *LeaseElector) checkRequest(ctx context.Context, election string, cur LeaderInfo, to string) (requestSeen, error) {
	recs, _, err := e.store.List(ctx, election)
	if err != nil {
		return requestSeen{}, fmt.Errorf("candidates: %w", err)
	}
	if _, ok := core.Target(coreCandidates(recs), cur.Session, to); !ok {
		return requestSeen{}, fmt.Errorf("%s: %w", noTarget(to), ErrNoCandidate)
	}
	follows, says := leaderFollows(recs, cur.Session)
	if says && !follows {
		return requestSeen{}, fmt.Errorf("the leader %q does not follow its candidate list (Options.FollowRoster or Preempt), "+
			"so it cannot see a request; its own Leadership.HandOver can hand over: %w", cur.Identity, errors.ErrUnsupported)
	}
	others := map[string]bool{}
	for _, r := range recs {
		if r.Owner != cur.Session {
			others[r.Owner] = true
		}
	}
	return requestSeen{says: says, others: others}, nil
}

// joinRequest writes the request record for a handover of election to
// to, on the live session, and returns the session and the record's join
// position.
func (e *LeaseElector) joinRequest(ctx context.Context, election, to string) (backends.Session, uint64, error) {
	sid, err := e.AwaitSession(ctx)
	if err != nil {
		return nil, 0, err
	}
	s := e.sessionByID(sid)
	if s == nil {
		return nil, 0, fmt.Errorf("the session %s ended: %w", sid, backends.ErrSessionExpired)
	}
	v := encodeCandidate(candidateValue{Identity: e.opts.Identity, NoLead: true,
		Joined: joinedAt(time.Now()), Request: &handoverRequest{Handover: to}})
	rec, err := s.Join(ctx, election, v)
	if err != nil {
		return nil, 0, err
	}
	return s, rec.Token, nil
}

// leaveRequest deletes the request record of election on s, one attempt
// bounded by RequestTimeout, after ctx ended too.
func (e *LeaseElector) leaveRequest(ctx context.Context, s backends.Session, election string) {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.opts.RequestTimeout)
	defer cancel()
	_ = s.Leave(lctx, election)
}

// beginRequest marks a RequestHandover of election as running on this
// elector, or says why it may not run (see RequestHandover): on the loop
// goroutine, as Campaign checks and registers, so that neither misses
// the other.
func (e *LeaseElector) beginRequest(election string) error {
	var why string
	if !e.do(func(time.Time) {
		if why = e.requestBusy(election); why == "" {
			e.callsOf(election).request = true
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
	case e.requestRuns(election):
		return "another RequestHandover of it runs on this elector"
	case e.m.Active(election):
		return "this elector campaigns in or leads it (a leader hands over with Leadership.HandOver; " +
			"a waiting candidate asks from another elector, as leasehold handover does)"
	case e.m.Recorded(election):
		return "this elector's candidate record in it is still being written or deleted"
	}
	return ""
}

// endRequest marks the RequestHandover of election as ended, once its
// record is gone.
func (e *LeaseElector) endRequest(election string) {
	e.do(func(time.Time) {
		if c := e.of(election).calls; c != nil {
			c.request = false
			e.tidyCalls(election)
		}
	})
}

// leaderFollows reports what the candidate record in recs of the
// leader's session says of whether, leading, it follows its candidate
// list: says is false if there is no such record or it does not say.
func leaderFollows(recs []backends.Record, leader string) (follows, says bool) {
	for _, r := range recs {
		v, err := decodeCandidate(r.Value)
		if err == nil && r.Owner == leader && v.Request == nil && v.Follows != nil {
			return *v.Follows, true
		}
	}
	return false, false
}

// pending is a request made and waited on: the term it asks to end, its
// record's join position, its target, and what its check saw.
type pending struct {
	from   LeaderInfo
	joined uint64
	to     string
	requestSeen
}

// awaitNewTerm follows election's leader until a term other than p's
// leads, named by p.to if it is set, and returns it; or until a term
// begins that no leader after it may honour p in (ErrOvertaken).
func (e *LeaseElector) awaitNewTerm(ctx context.Context, election string, p pending) (LeaderInfo, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := e.Observe(ctx, election)
	if err != nil {
		return LeaderInfo{}, err
	}
	last := p.from
	for info := range ch {
		if info.Err != nil {
			return LeaderInfo{}, info.Err
		}
		last = info
		if done, err := p.outcome(info); done {
			return info, err
		}
	}
	return LeaderInfo{}, p.timedOut(last, context.Cause(ctx))
}

// outcome reports whether info ends p's wait: with nil if it is a new
// term p asked for, with ErrOvertaken if it is a new term that p did not
// ask for and that began after p was made (see core.Honourable). A new
// term that began before may still honour p. Without a target, p asks
// for a term of another candidate: the leader's identity on a session
// that was not another candidate's when p was made (its own, or a new
// one) is the leader back, not a handover; another elector that shares
// its identity and waited then is a handover.
func (p pending) outcome(info LeaderInfo) (bool, error) {
	tok := uint64(info.Token)
	again := p.to == "" && p.from.Identity != "" && info.Identity == p.from.Identity && !p.others[info.Session]
	switch {
	case !info.HasLeader() || info.Token == p.from.Token:
		return false, nil
	case p.to == "" && !again, info.Identity == p.to || info.Session == p.to:
		return true, nil
	case again && !core.Honourable(p.joined, tok):
		return true, fmt.Errorf("%q leads again, with token %d, a term begun after this request was made (at %d): "+
			"its term ended before it handed over (its session or key was lost) and it won the key again; "+
			"a leader honours only requests made during its own term: %w", info.Identity, tok, p.joined, ErrOvertaken)
	case !core.Honourable(p.joined, tok):
		return true, fmt.Errorf("%q leads with token %d, a term begun after this request was made (at %d) "+
			"and not the one asked for: another request or handover was honoured first, or the leader changed; "+
			"a leader honours only requests made during its own term: %w", info.Identity, tok, p.joined, ErrOvertaken)
	}
	return false, nil
}

// timedOut is p's error when its wait ended with cause, last being the
// leader it saw last. It says that the leader may not follow its
// candidate list only if that leader is the one asked and its record
// does not say.
func (p pending) timedOut(last LeaderInfo, cause error) error {
	var seen string
	switch {
	case !last.HasLeader():
		seen = "the election had no leader"
	case last.Token != p.from.Token:
		seen = fmt.Sprintf("%q led with token %d, a term begun before the request was made, which may still honour it", last.Identity, last.Token)
	case p.says:
		seen = fmt.Sprintf("%q still led with token %d; it follows its candidate list, so it had not come to this "+
			"request: it honours one request a term, at its next safe point, if the target still waits", last.Identity, last.Token)
	default:
		seen = fmt.Sprintf("%q still led with token %d; its candidate record does not say that it follows its candidate "+
			"list, as an earlier version's does not: such a leader sees requests only with Options.FollowRoster or Preempt",
			last.Identity, last.Token)
	}
	return fmt.Errorf("no new term before ctx ended: %s: %w", seen, cause)
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
