package core

import (
	"cmp"
	"slices"
	"time"
)

// Succession order is decided here, once, wherever it is asked: a
// leader's handover target and resign successor (Machine), whether a
// handover request from outside names a candidate that may take over
// (Target), and the order in which package lease lists an election's
// candidates (List).

// Candidate is one record of an election's roster, as package lease reads
// it from the store and passes it to Roster, List and Target.
type Candidate struct {
	// Session is the ID of the session the record is bound to.
	Session string
	// Identity is the candidate's identity.
	Identity string
	// Priority is the candidate's priority; higher leads first.
	Priority int
	// MayLead is false for a candidate that only follows (Config.NoLead),
	// and for a request.
	MayLead bool
	// Damped is true while the candidate sits out a damping penalty.
	Damped bool
	// Order places candidates of equal priority: the queue entry's token
	// if the candidate waits in a queue, else the record's join token.
	// Lower comes first.
	Order uint64
	// Joined is the record's own token, where in the store its write
	// came. A later record of the same Identity supersedes it (see
	// Superseded).
	Joined uint64
	// Queue is the token of the candidate's queue entry, 0 if it waits in
	// no queue.
	Queue uint64
	// Wakes is true for a candidate whose wait in line also wakes when
	// the key is passed to it (see backends.Target.Entry): it is passed
	// the key at once, wherever it waits in line, with no check of its
	// place. One that does not wake is passed the key only at the head
	// of its line (see passcheck.go).
	Wakes bool
	// Request marks a handover request from outside (`leasehold
	// handover`), not a candidate: the leader hands over to To.
	Request bool
	// To is a request's target, a session ID or an identity; empty means
	// the next in succession order. A leader honours only requests whose
	// Order exceeds its key's Token (made during its leadership).
	To string
	// Shown is what a candidate list shows of the candidate and nothing
	// decides by; nil where it is not needed (a leader's roster).
	Shown *Shown
}

// Shown is what a candidate list shows of a candidate beside what decides
// its place. A list that shows a change of it is a change (ListSends).
type Shown struct {
	// Labels are the candidate's labels.
	Labels map[string]string
	// Since is when the candidate joined, by its own clock, as its record
	// says.
	Since time.Time
}

// Listed is a Candidate as an election's candidate list shows it (List).
type Listed struct {
	Candidate
	// Leader is true for the record of the session that holds the key
	// (never a request's).
	Leader bool
	// Superseded is true for a record that a later record of the same
	// Identity supersedes (see Superseded).
	Superseded bool
}

// The groups of the succession order, first to last.
const (
	groupLeader   = iota // the key's holder
	groupLine            // may take over: may lead, neither damped nor superseded, not a request
	groupSitting         // may lead, but damped or superseded
	groupFollower        // may not lead (Config.NoLead)
	groupRequest         // handover requests
)

// group is c's group in succession order.
func (c Listed) group() int {
	switch {
	case c.Leader:
		return groupLeader
	case c.Request:
		return groupRequest
	case !c.MayLead:
		return groupFollower
	case c.Damped, c.Superseded:
		return groupSitting
	}
	return groupLine
}

// List returns roster in succession order: the record of session leader
// (the key's holder; "" if none holds it); then the candidates that may
// take over from it (see Succession); then the damped and the superseded;
// then those that may not lead; last the handover requests. Within a
// group: Priority descending, then Order ascending, then roster order.
func List(roster []Candidate, leader string) []Listed {
	old := Superseded(roster)
	out := make([]Listed, 0, len(roster))
	for _, c := range roster {
		out = append(out, Listed{Candidate: c, Superseded: old[c.Session],
			Leader: leader != "" && c.Session == leader && !c.Request})
	}
	slices.SortStableFunc(out, func(a, b Listed) int {
		return cmp.Or(cmp.Compare(a.group(), b.group()), cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.Order, b.Order))
	})
	return out
}

// Succession returns the candidates of roster that could take over from
// session self, in succession order (see List): those that may lead, are
// neither damped nor superseded, are not requests and are not self's.
func Succession(roster []Candidate, self string) []Candidate {
	var out []Candidate
	for _, c := range List(roster, self) {
		if c.group() == groupLine { // self's record is the leader's
			out = append(out, c.Candidate)
		}
	}
	return out
}

// Target returns the candidate a handover from session self to to goes
// to: the first in succession order (Succession) whose Session or
// Identity is to, or the first of all if to is empty. It reports false if
// there is none: no candidate that may take over is named to, or none
// waits.
func Target(roster []Candidate, self, to string) (Candidate, bool) {
	for _, c := range Succession(roster, self) {
		if to == "" || c.Session == to || c.Identity == to {
			return c, true
		}
	}
	return Candidate{}, false
}

// Superseded returns the sessions of roster's candidate records that a
// later record of the same Identity (a higher Joined) supersedes. Such a
// record is bound to a session its elector gave up, having lost it or
// made it too late: the elector closes it, but while the store cannot be
// reached the store holds it, and its records, until it expires. A key
// passed to it would sit unled until then, so it is never a handover's
// target, nor a preempting candidate. Requests are not candidates and
// take no part. Two electors given one identity are taken for one.
func Superseded(roster []Candidate) map[string]bool {
	last := make(map[string]uint64)
	for _, c := range roster {
		if !c.Request && c.Identity != "" && c.Joined > last[c.Identity] {
			last[c.Identity] = c.Joined
		}
	}
	var old map[string]bool
	for _, c := range roster {
		if !c.Request && c.Identity != "" && c.Joined < last[c.Identity] {
			if old == nil {
				old = make(map[string]bool)
			}
			old[c.Session] = true
		}
	}
	return old
}

// succession is Succession from this machine's session.
func (m *Machine) succession(roster []Candidate) []Candidate {
	return Succession(roster, m.SessionID())
}

// target is Target from this machine's session.
func (m *Machine) target(roster []Candidate, to string) (Candidate, bool) {
	return Target(roster, m.SessionID(), to)
}
