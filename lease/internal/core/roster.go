package core

import (
	"slices"
	"time"
)

// Roster reports the latest roster of name (every candidate record,
// including this session's, in any order) while name holds its key;
// otherwise it does nothing. The machine keeps it to pick a handover's
// target and a resign's successor. While leading, it also acts on it:
//   - the oldest Request record naming a candidate there is starts a
//     handover to its To (see HandOver); a request with no such
//     candidate is ignored, and so is one whose
//     Order is below this leadership's Token: it joined before this key
//     was created, so it was for an earlier leader, and has been honoured
//     (join positions and tokens count in the same store positions);
//   - with Config.Preempt, a candidate that may lead, is not damped or
//     superseded (see Superseded), and has a strictly higher Priority
//     than Config.Priority starts a handover to the top of the
//     succession order once this leader has seen it in every roster
//     since PreemptAfter ago. An equal or lower priority never
//     preempts, so the new leader never preempts back.
func (m *Machine) Roster(now time.Time, name string, cands []Candidate) {
	m.Tick(now)
	e := m.els[name]
	if e == nil || !e.holds() {
		return
	}
	e.roster = slices.Clone(cands)
	if e.phase != leading {
		return
	}
	if r, ok := m.request(e.roster, e.token); ok && m.handOver(now, name, e, r.To, CauseRequest) {
		return
	}
	m.preempt(now, name, e)
}

// request returns the oldest handover request in roster made during the
// leadership of token that names a candidate there is (see HandOver), if
// any: one for a candidate since gone does not hold up those after it.
func (m *Machine) request(roster []Candidate, token uint64) (Candidate, bool) {
	var req Candidate
	found := false
	for _, c := range roster {
		if !c.Request || !Honourable(c.Order, token) || (found && c.Order >= req.Order) {
			continue
		}
		if _, ok := m.target(roster, c.To); ok {
			req, found = c, true
		}
	}
	return req, found
}

// Honourable reports whether the leader whose key has token may honour a
// handover request whose record joined at order: only one made during its
// leadership, whose join position is above the token (join positions and
// tokens count in the same store positions). A request made before is
// for an earlier leader, and has been honoured or overtaken. Tokens rise
// with every term, so a request that one leader may not honour no later
// leader may either: its requester, seeing such a term that is not the
// one it asked for, knows that it never will be.
func Honourable(order, token uint64) bool { return order > token }

// mayPreempt reports whether c may preempt this leader.
func (m *Machine) mayPreempt(c Candidate) bool {
	return m.cfg.Preempt && c.MayLead && !c.Damped && !c.Request &&
		c.Session != m.SessionID() && c.Priority > m.cfg.Priority
}

// preempt updates when the leading e first saw each candidate that may
// preempt it (one that left, or lost the right, starts again), and hands
// over once the earliest has been seen for PreemptAfter; until then it
// sets the timer that calls it again.
func (m *Machine) preempt(now time.Time, name string, e *election) {
	seen := make(map[string]time.Time)
	var first time.Time
	old := Superseded(e.roster)
	for _, c := range e.roster {
		if !m.mayPreempt(c) || old[c.Session] {
			continue
		}
		t, ok := e.seen[c.Session]
		if !ok {
			t = now
		}
		seen[c.Session] = t
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	e.seen, e.preemptAt = seen, time.Time{}
	switch {
	case first.IsZero():
	case now.Before(first.Add(m.cfg.PreemptAfter)):
		e.preemptAt = first.Add(m.cfg.PreemptAfter)
		m.timed[name] = e
	default:
		m.handOver(now, name, e, "", CausePreempt)
	}
}
