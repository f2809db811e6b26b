package core

import (
	"slices"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// The election policies are liveness and preference only: which candidate
// creates the key, and when. Safety still rests on the compare-and-swap
// create and the fencing tokens alone.
//
// With the zero values of their Config fields (and no Roster reported)
// the machine behaves as it did before them.

// successor returns whom a plain resign should hand over to: the top of
// the succession order, to which the key is passed in one write, where a
// Delete and the successor's Create are two.
func (m *Machine) successor(e *election) (Candidate, bool) {
	line := m.succession(e.roster)
	if len(line) == 0 {
		return Candidate{}, false
	}
	return line[0], true
}

// sitsOut reports whether a campaign must not create the key now: it may
// not lead, or it is damped.
func (m *Machine) sitsOut(now time.Time, e *election) bool {
	return m.cfg.NoLead || (e.damped && now.Before(e.dampEnd))
}

// direct reports whether a waiting e's Wait must watch the key itself,
// not wait in a queue (see Action.Direct). The damping is current: Tick
// clears e.damped when it ends.
func (m *Machine) direct(e *election) bool {
	return e.phase == waiting && (m.cfg.NoLead || e.damped)
}

// observedWaiting handles a waiting campaign's read of the key: rec, after
// e.known. The key bound to our live session (passed to it, or made by
// a Create whose reply was lost) leads at once if the read is a Get or a
// wait's answer that states a fact (see fact), and is confirmed with a
// Get otherwise; one gone while we sit out (damped) waits for the end of
// the penalty; one gone otherwise is created.
func (m *Machine) observedWaiting(now time.Time, name string, e *election, rec backends.Record) {
	prev := e.known
	e.known = rec
	switch {
	case m.cfg.NoLead:
	case rec.Exists() && rec.Owner == m.SessionID() && (e.kind == Get || m.fact(prev, rec)):
		m.won(name, e, rec) // passed to us: see Config.PassFacts
		m.tickSession(now)
		return
	case rec.Exists() && rec.Owner == m.SessionID():
		m.call(e, Action{Kind: Get, Election: name}) // a watch may lag: confirm
		return
	case rec.Exists():
		e.holdUntil = time.Time{}
	case m.sitsOut(now, e):
		m.holdOff(name, e, e.dampEnd)
	default:
		m.create(now, name, e)
		m.tickSession(now)
		return
	}
	m.wait(name, e)
}

// fact reports whether rec, a wait's answer after the state prev, needs
// no confirming Get (Config.PassFacts).
func (m *Machine) fact(prev, rec backends.Record) bool {
	return m.cfg.PassFacts && prev.Revision != 0 && rec.Revision > prev.Revision
}

// holdOff makes the waiting e create no key before until: it waits on the
// absent key (a create by another wakes it), and reads the key again then.
func (m *Machine) holdOff(name string, e *election, until time.Time) {
	e.holdUntil = until
	m.timed[name] = e
}

// policyTimer returns when e's policy timer fires, or the zero time.
func (e *election) policyTimer() time.Time {
	switch e.phase {
	case leading:
		return e.preemptAt
	case yielding:
		return e.yieldUntil
	case needSession, creating, waiting:
		t := e.holdUntil
		if e.damped && (t.IsZero() || e.dampEnd.Before(t)) {
			t = e.dampEnd
		}
		return t
	}
	return time.Time{}
}

// tickPolicies fires the policy timers due at now, in name order.
func (m *Machine) tickPolicies(now time.Time) {
	var names []string
	for name, e := range m.timed {
		switch t := e.policyTimer(); {
		case t.IsZero():
			delete(m.timed, name)
		case !now.Before(t):
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if e := m.timed[name]; e != nil {
			m.fire(now, name, e)
		}
	}
}

// fire acts on e's policy timer: a preemption's window ended, a yield
// timed out, or a damping ended.
func (m *Machine) fire(now time.Time, name string, e *election) {
	switch e.phase {
	case leading:
		m.preempt(now, name, e)
		return
	case yielding:
		m.handOff(name, e, "")
		return
	}
	if e.damped && !now.Before(e.dampEnd) {
		e.damped = false
		m.emit(Action{Kind: Publish, Election: name, Damped: false})
	}
	if !e.holdUntil.IsZero() && !now.Before(e.holdUntil) {
		e.holdUntil = time.Time{}
		if e.phase == waiting {
			m.call(e, Action{Kind: Get, Election: name})
		}
	}
}
