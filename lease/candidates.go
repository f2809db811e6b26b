package lease

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// Candidate is one entry of an election's candidate list, as its record
// in the store's roster said when it was read (see
// LeaseElector.Candidates).
type Candidate struct {
	// Identity is the candidate's Options.Identity.
	Identity string
	// Session is the ID of the store session its record is bound to: the
	// record goes when the session ends.
	Session string
	// Priority is the candidate's Options.Priority.
	Priority int
	// Labels are the candidate's Options.Labels; nil if none.
	Labels map[string]string
	// Joined is when the candidate joined the election, by its own clock.
	// It is for display only: nothing here decides by it.
	Joined time.Time
	// MayLead is false for a candidate with Options.NoLead, which never
	// takes the key, and for a request.
	MayLead bool
	// Damped is true while the candidate sits out a flap-damping penalty
	// (Options.Damping).
	Damped bool
	// Superseded is true for a record that a later record of the same
	// Identity supersedes: its elector gave that session up (lost it, or
	// made it too late) and stood again under a new one. The record goes
	// when the store closes or expires the old session; until then it is
	// listed, but never a handover's target nor a preempting candidate.
	Superseded bool
	// Leader is true for the candidate that held the leader key when the
	// list was read.
	Leader bool
	// Requester marks the record of a `leasehold handover` request, not a
	// candidate: Request then holds its target.
	Requester bool
	// Request is the target of a handover request (an identity or a
	// session ID), empty for the next in line; always empty unless
	// Requester is set.
	Request string

	order           uint64 // queue token if any, else join token
	queue           uint64 // queue token; 0: none
	wakes           bool   // its wait in line wakes on a Pass to it
	takes           bool   // it takes up a key passed to it (core.Candidate.Takes)
	ignoresRequests bool   // its record says that, leading, it does not see requests
	saysFollows     bool   // its record says whether, leading, it sees requests
}

// Candidates returns election's candidates in succession order: the
// leader first; then the candidates that may lead and are neither damped
// nor superseded, by Priority (higher first), then by their place in the
// queue, or by join order for those not in it; then the damped and the
// superseded ones, in the same order; then
// those that may not lead (Options.NoLead); last the handover requests.
// It makes one List of the roster and one Get of the leader key. It needs
// no session and does not campaign. A campaigning elector is listed once
// its first outcome is known (it won, or found the key taken and, in queue
// mode, took its place in line), by a write made after it: so for up to a
// round trip after Campaign returns, a leader that won at its first try
// may be missing (Leader and Observe name it at once). It drops out when
// its campaign or leadership ends, or when its session ends (a crashed
// one: within the TTL). Records this package cannot read are left out.
// The error wraps errors.ErrUnsupported if the store does not implement
// backends.Roster.
func (e *LeaseElector) Candidates(ctx context.Context, election string) ([]Candidate, error) {
	if err := e.check("candidates"); err != nil {
		return nil, err
	}
	if err := backends.ValidateElection(election); err != nil {
		return nil, fmt.Errorf("lease: candidates: %v: %w", err, ErrInvalidOption)
	}
	if e.roster == nil {
		return nil, e.noRoster("candidates", election)
	}
	recs, _, err := e.roster.List(ctx, election)
	if err != nil {
		return nil, fmt.Errorf("lease: candidates %q: %w", election, err)
	}
	leader, err := e.store.Get(ctx, election)
	if err != nil {
		return nil, fmt.Errorf("lease: candidates %q: %w", election, err)
	}
	return succession(recs, leader), nil
}

func (e *LeaseElector) noRoster(what, election string) error {
	return fmt.Errorf("lease: %s %q: the %s store does not implement backends.Roster: %w",
		what, election, e.store.Name(), errors.ErrUnsupported)
}

// succession decodes a roster and sorts it in succession order, marking
// the holder of leader and the superseded records (core.Superseded).
func succession(recs []backends.Record, leader backends.Record) []Candidate {
	cs := make([]Candidate, 0, len(recs))
	old := core.Superseded(coreCandidates(recs))
	for _, r := range recs {
		if c, ok := candidateOf(r); ok {
			c.Leader = leader.Exists() && r.Owner == leader.Owner && !c.Requester
			c.Superseded = old[c.Session]
			cs = append(cs, c)
		}
	}
	slices.SortStableFunc(cs, func(a, b Candidate) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
			return c
		}
		return cmp.Compare(a.order, b.order)
	})
	return cs
}

// rank is c's group in succession order.
func rank(c Candidate) int {
	switch {
	case c.Leader:
		return 0
	case c.Requester:
		return 4
	case !c.MayLead:
		return 3
	case c.Damped, c.Superseded:
		return 2
	}
	return 1
}

// candidateOf decodes a roster record; ok is false for one this package
// cannot read.
func candidateOf(r backends.Record) (Candidate, bool) {
	v, err := decodeCandidate(r.Value)
	if err != nil {
		return Candidate{}, false
	}
	c := Candidate{Identity: v.Identity, Session: r.Owner, Priority: v.Priority, Labels: v.Labels,
		Joined: joinedTime(v.Joined), MayLead: !v.NoLead && v.Request == nil, Damped: v.Damped, order: r.Token,
		wakes: v.Wakes, takes: v.Takes, ignoresRequests: v.Follows != nil && !*v.Follows, saysFollows: v.Follows != nil}
	if v.Queue != 0 {
		c.order, c.queue = v.Queue, v.Queue
	}
	if v.Request != nil {
		c.Requester, c.Request = true, v.Request.Handover
	}
	return c, true
}

// coreCandidates decodes a roster for the core (core.Machine.Roster).
func coreCandidates(recs []backends.Record) []core.Candidate {
	cs := make([]core.Candidate, 0, len(recs))
	for _, r := range recs {
		if c, ok := candidateOf(r); ok {
			cs = append(cs, core.Candidate{Session: c.Session, Identity: c.Identity, Priority: c.Priority,
				MayLead: c.MayLead, Damped: c.Damped, Order: c.order, Joined: r.Token, Queue: c.queue, Wakes: c.wakes,
				Takes: c.takes, Request: c.Requester, To: c.Request})
		}
	}
	return cs
}
