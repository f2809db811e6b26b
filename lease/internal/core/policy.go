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
// the succession order, if plain deletion might not make it leader (the
// priorities of the candidates differ), or if the key can be passed to it
// (Config.Pass): one write, where a Delete and the successor's Create
// are two. With equal priorities the top is the one first in line, who
// takes the key after a plain Delete anyway; a handover by marker would
// only add round trips.
func (m *Machine) successor(e *election) (Candidate, bool) {
	line := m.succession(e.roster)
	if len(line) == 0 || (line[0].Priority == line[len(line)-1].Priority && !m.cfg.Pass) {
		return Candidate{}, false
	}
	return line[0], true
}

// sitsOut reports whether a campaign must not create the key now: it may
// not lead, or it is damped.
func (m *Machine) sitsOut(now time.Time, e *election) bool {
	return m.cfg.NoLead || (e.damped && now.Before(e.dampEnd)) || now.Before(e.stepBack)
}

// sitOutEnd returns when a campaign that sits out (and may lead) may
// create the key again: the later of its damping's end and, after it
// handed the election over, the end of its step back.
func (e *election) sitOutEnd() time.Time {
	if e.damped && e.dampEnd.After(e.stepBack) {
		return e.dampEnd
	}
	return e.stepBack
}

// direct reports whether a waiting e's Wait must watch the key itself,
// not wait in a queue (see Action.Direct). The damping is current: Tick
// clears e.damped when it ends.
func (m *Machine) direct(e *election) bool {
	if e.phase != waiting {
		return false
	}
	to, ok := m.markerTo(e.known)
	return m.cfg.NoLead || e.damped || !e.stepBack.IsZero() || (ok && to == m.SessionID())
}

// markerTo returns the session a record's handover marker names, if any:
// in the value of a key, or beside an absent one (Record.To).
func (m *Machine) markerTo(rec backends.Record) (string, bool) {
	if !rec.Exists() {
		return rec.To, rec.To != ""
	}
	if m.cfg.Marker == nil {
		return "", false
	}
	to, ok := m.cfg.Marker(rec.Value)
	return to, ok && to != ""
}

// observedWaiting handles a waiting campaign's read of the key: rec, after
// e.known. The key held by our own session (a lost reply), or carrying or
// gone with a marker naming us, is created at once, ending a step back
// (see handedOff) but not a damping; a key gone with a marker naming
// another session (in its value before, or beside it now, news to us:
// one marker holds each waiter off once) is left to it for HoldOff; one
// gone while we sit out (damped) waits for the end of the penalty; one
// gone otherwise is created.
func (m *Machine) observedWaiting(now time.Time, name string, e *election, rec backends.Record) {
	prev := e.known
	e.known = rec
	var to string
	var marked bool
	if prev.Exists() {
		to, marked = m.markerTo(prev) // the key went with a marker in its value
	}
	named, _ := m.markerTo(rec)
	if !rec.Exists() && named != "" && (prev.Exists() || prev.To != named) {
		to, marked = named, true // released with the marker beside it, news to us
	}
	switch {
	case m.cfg.NoLead:
	case rec.Exists() && rec.Owner == m.SessionID() && m.cfg.Pass && (e.kind == Get || m.fact(prev, rec)):
		m.won(name, e, rec) // passed to us: see Config.Pass
		m.tickSession(now)
		return
	case rec.Exists() && rec.Owner == m.SessionID() && m.cfg.Pass:
		m.call(e, Action{Kind: Get, Election: name}) // a watch may lag: confirm
		return
	case rec.Exists() && (rec.Owner == m.sess.id || (named != "" && named == m.SessionID())):
		m.create(now, name, e)
		m.tickSession(now)
		return
	case rec.Exists():
		e.holdUntil, e.stepBack = time.Time{}, time.Time{} // the target (or another) took it
	case marked && to == m.SessionID() && !e.damped:
		// Named by a later leader's marker: the target we stepped back for
		// led and let go, perhaps before we read its key. Sitting out now
		// would leave the key free for the rest of HoldOff.
		e.stepBack = time.Time{}
		m.create(now, name, e)
		m.tickSession(now)
		return
	case !e.holdUntil.IsZero():
	case m.sitsOut(now, e):
		m.holdOff(name, e, e.sitOutEnd())
	case marked && to != m.SessionID() && m.cfg.HoldOff > 0:
		m.holdOff(name, e, now.Add(m.cfg.HoldOff))
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
// timed out, a damping ended or a hold-off did.
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
		if !now.Before(e.stepBack) {
			e.stepBack = time.Time{}
		}
		if e.phase == waiting {
			m.call(e, Action{Kind: Get, Election: name})
		}
	}
}
