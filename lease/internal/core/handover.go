package core

import "time"

// A handover passes a held election to a named candidate. The leader
// yields (the application's leadership ends with ErrHandover while the key
// stays held), and once the application has let go (Resign) or
// YieldTimeout has passed, it writes a marker naming the target into the
// key (Proclaim), wakes the target if it waits in a queue (Nudge) and
// deletes the key. Waiters that read the marker hold off for HoldOff, so
// that the target takes the key unraced; if it does not, the normal
// election resumes.

// HandOver hands the leadership of name over to to: a session ID or an
// identity from the last Roster, or "" for the next in succession order
// (Priority descending, then Order ascending; a candidate that may lead,
// is not damped, is not a request and is not this session). It emits
// Yield, then, after Resign(name) or YieldTimeout, Proclaim, then Nudge
// (if the target waits in a queue), then Delete, and Released at the end. With no such candidate it
// resigns as Resign does with no handover (Lost with ErrResigned, Delete,
// Released). It does nothing unless name is leading (not yielding).
func (m *Machine) HandOver(now time.Time, name, to string) {
	m.Tick(now)
	e := m.els[name]
	if e == nil || e.phase != leading {
		return
	}
	if !m.handOver(now, name, e, to, CauseHandover) {
		m.resign(now, name, e, ErrResigned)
	}
}

// Causes of a handover, on its Yield action.
const (
	CauseHandover = "handover" // HandOver
	CausePreempt  = "preempt"  // a candidate of higher priority (Config.Preempt)
	CauseRequest  = "request"  // a Request candidate in the roster
)

// handOver starts a handover of the leading e to to (see HandOver), and
// reports false if there is no such candidate.
func (m *Machine) handOver(now time.Time, name string, e *election, to, cause string) bool {
	c, ok := m.target(e.roster, to)
	if !ok {
		return false
	}
	e.phase, e.to, e.toQueue, e.preemptAt = yielding, c.Session, c.Queue, time.Time{}
	e.yieldUntil = now.Add(m.cfg.YieldTimeout)
	m.timed[name] = e
	m.emit(Action{Kind: Yield, Election: name, Cause: cause})
	return true
}

// resignLeading resigns the leading e: Lost with ErrResigned, then a
// handover to the successor if there is one (see successor), else Delete.
func (m *Machine) resignLeading(now time.Time, name string, e *election) {
	c, ok := m.successor(e)
	if !ok {
		m.resign(now, name, e, ErrResigned)
		return
	}
	m.lost(now, name, ErrResigned)
	e.to, e.toQueue = c.Session, c.Queue
	m.proclaim(name, e)
}

// proclaim writes the handover marker naming e.to into e's key.
func (m *Machine) proclaim(name string, e *election) {
	e.phase, e.yieldUntil = proclaiming, time.Time{}
	m.call(e, Action{Kind: Proclaim, Election: name, Epoch: m.sess.epoch, Token: e.token, To: e.to})
}

// Proclaimed reports the outcome of Proclaim op for name. On success the
// target is nudged, if it waits in a queue, and then the key is deleted;
// on failure the key is deleted at once, without the marker, and the
// normal election decides.
func (m *Machine) Proclaimed(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	e := m.result(name, op)
	switch {
	case e == nil || e.phase != proclaiming:
	case err != nil:
		e.lastErr = err
		m.release(name, e)
	case e.toQueue != 0:
		e.phase = nudging
		m.call(e, Action{Kind: Nudge, Election: name, To: e.to, Token: e.toQueue})
	default:
		m.release(name, e)
	}
}

// Nudged reports the outcome of Nudge op for name. Whatever it is, the
// key is deleted next: an error only means the target learns of the
// handover from its queue later.
func (m *Machine) Nudged(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	if e := m.result(name, op); e != nil && e.phase == nudging {
		m.release(name, e)
	}
}

// HasTarget reports whether name is leading and a HandOver(name, to) would
// find a candidate in the last Roster (see HandOver), so that a caller can
// refuse a handover to nobody rather than resign.
func (m *Machine) HasTarget(name, to string) bool {
	e := m.els[name]
	if e == nil || e.phase != leading {
		return false
	}
	_, ok := m.target(e.roster, to)
	return ok
}
