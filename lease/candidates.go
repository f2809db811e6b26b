package lease

import (
	"context"
	"fmt"
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
	// Labels are the candidate's Options.Labels, with its campaign's
	// WithLabels merged over them; nil if none.
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
func (e *LeaseElector) Candidates(ctx context.Context, election string) ([]Candidate, error) {
	if err := e.check("candidates"); err != nil {
		return nil, err
	}
	if err := backends.ValidateElection(election); err != nil {
		return nil, fmt.Errorf("lease: candidates: %v: %w", err, ErrInvalidOption)
	}
	recs, _, err := e.store.List(ctx, election)
	if err != nil {
		return nil, fmt.Errorf("lease: candidates %q: %w", election, err)
	}
	leader, err := e.store.Get(ctx, election)
	if err != nil {
		return nil, fmt.Errorf("lease: candidates %q: %w", election, err)
	}
	return succession(recs, leader), nil
}

// succession decodes a roster and lists it in succession order
// (core.List), marking the holder of leader and the superseded records.
func succession(recs []backends.Record, leader backends.Record) []Candidate {
	return candidatesOf(core.List(decodeRoster(recs, true), holder(leader)))
}

// holder returns the session that holds leader, the key, or "".
func holder(leader backends.Record) string {
	if !leader.Exists() {
		return ""
	}
	return leader.Owner
}

// candidatesOf returns a list as Candidates shows it.
func candidatesOf(l []core.Listed) []Candidate {
	cs := make([]Candidate, len(l))
	for i, c := range l {
		cs[i] = Candidate{Identity: c.Identity, Session: c.Session, Priority: c.Priority,
			MayLead: c.MayLead, Damped: c.Damped, Superseded: c.Superseded, Leader: c.Leader,
			Requester: c.Request, Request: c.To}
		if c.Shown != nil {
			cs[i].Labels, cs[i].Joined = c.Shown.Labels, c.Shown.Since
		}
	}
	return cs
}

// coreCandidates decodes a roster for the core's decisions
// (core.Machine.Roster, core.Target): without what is only shown, which a
// leader's machine would keep for as long as it leads.
func coreCandidates(recs []backends.Record) []core.Candidate { return decodeRoster(recs, false) }

// decodeRoster decodes a roster for the core, with the labels and join
// times if shown (core.List); records this package cannot read are left
// out.
func decodeRoster(recs []backends.Record, shown bool) []core.Candidate {
	cs := make([]core.Candidate, 0, len(recs))
	for _, r := range recs {
		v, err := decodeCandidate(r.Value)
		if err != nil {
			continue
		}
		c := core.Candidate{Session: r.Owner, Identity: v.Identity, Priority: v.Priority, MayLead: !v.NoLead && v.Request == nil,
			Damped: v.Damped, Order: r.Token, Joined: r.Token, Queue: v.Queue, Wakes: v.Wakes}
		if shown {
			c.Shown = &core.Shown{Labels: v.Labels, Since: joinedTime(v.Joined)}
		}
		if v.Queue != 0 {
			c.Order = v.Queue
		}
		if v.Request != nil {
			c.Request, c.To = true, v.Request.Handover
		}
		cs = append(cs, c)
	}
	return cs
}
