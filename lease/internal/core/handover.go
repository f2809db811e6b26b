package core

import (
	"errors"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// A handover passes a held election to a named candidate. The leader
// yields (the application's leadership ends with ErrHandover while the key
// stays held), and once the application has let go (Resign) or
// YieldTimeout has passed, it hands the key off.
//
// Where the store rebinds a key in one write (Config.Pass), the leader
// passes the key to the target (Pass), which learns of it from its wait
// on the key and takes it up with Create. Only a target that watches the
// key, or wakes in line when passed it, may be passed to, or it would
// hold the key unawares: the leader first looks up the place of a target
// that waits in a queue (Ahead, see passcheck.go), and one behind others
// is first marked and woken as below, and then passed to; if it cannot be
// woken, the key is deleted instead.
//
// Elsewhere the leader writes a marker naming the target into the key
// (Proclaim), wakes the target if it waits in a queue (Nudge) and deletes
// the key. Waiters that read the marker hold off for HoldOff, so that the
// target takes the key unraced; if it does not, the normal election
// resumes.

// HandOver hands the leadership of name over to to: a session ID or an
// identity from the last Roster, or "" for the next in succession order
// (Priority descending, then Order ascending; a candidate that may lead,
// is not damped, is not a request and is not this session). It emits
// Yield, then, after Resign(name) or YieldTimeout, the hand-off (see
// handOff: Pass, or Proclaim, Nudge if the target waits in a queue, and
// Delete), and Released at the end: with no Err if the key was handed
// over, else wrapping ErrNotHandedOver (see unhanded). With no such candidate it
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
	CauseResign   = "resign"   // a resign that hands over (see successor)
)

// handOver starts a handover of the leading e to to (see HandOver), and
// reports false if there is no such candidate.
func (m *Machine) handOver(now time.Time, name string, e *election, to, cause string) bool {
	c, ok := m.target(e.roster, to)
	if !ok {
		return false
	}
	e.phase, e.preemptAt = yielding, time.Time{}
	e.aim(c)
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
	e.aim(c)
	m.handOff(name, e, CauseResign)
}

// aim makes c the target of e's handover.
func (e *election) aim(c Candidate) {
	e.to, e.toID, e.toQueue, e.toWakes = c.Session, c.Identity, c.Queue, c.Wakes
	e.passFailed, e.proclaimed = false, false
}

// passes reports whether e's key goes to its target by Pass: where the
// store passes keys (Config.Pass).
func (m *Machine) passes(*election) bool { return m.cfg.Pass }

// handOff hands e's key to e.to: by Pass where the store allows it (see
// passes); else by a marked Delete (Config.MarkDelete) if the target
// waits on the key or wakes in line, and every candidate in line does
// (lineWakes); else by Proclaim, Nudge and Delete. Its first action
// carries cause if the handover had no Yield (CauseResign).
func (m *Machine) handOff(name string, e *election, cause string) {
	if m.passes(e) {
		if e.toQueue != 0 && !e.toWakes { // see Candidate.Wakes
			m.checkLine(name, e, cause)
			return
		}
		m.pass(name, e, e.toQueue, cause)
		return
	}
	if m.cfg.MarkDelete && (e.toQueue == 0 || e.toWakes) && m.lineWakes(e.roster) {
		e.phase, e.yieldUntil = releasing, time.Time{}
		a := m.deleteAction(name, e)
		a.Cause = cause
		m.call(e, a)
		return
	}
	m.proclaim(name, e, cause)
}

// lineWakes reports whether every other candidate of roster that waits
// in line says it wakes on a marked release (Candidate.Wakes). One that
// does not is of an earlier version, which reads no marker beside the key:
// at the head of the line it would take the released key at once, ahead
// of the target, where it holds off for a marker in the key's value.
func (m *Machine) lineWakes(roster []Candidate) bool {
	for _, c := range roster {
		if c.Session != m.SessionID() && c.Queue != 0 && !c.Wakes {
			return false
		}
	}
	return true
}

// pass passes e's key to e.to; queue is the entry the target waits with,
// 0 if it watches the key (Action.Queue).
func (m *Machine) pass(name string, e *election, queue uint64, cause string) {
	e.phase, e.yieldUntil = passing, time.Time{}
	m.call(e, Action{Kind: Pass, Election: name, Epoch: m.sess.epoch, Token: e.token, To: e.to, ToID: e.toID, Queue: queue, Cause: cause})
}

// Passed reports the outcome of Pass op for name. On success the
// handover is done, and the leader's next campaign does not step back.
// An error deletes the key, with no marker (Config.MarkDelete), and the
// normal election decides: the target is gone, or the key was lost, or
// the outcome is unknown (a Delete then finds a passed key gone).
func (m *Machine) Passed(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	e := m.result(name, op)
	switch {
	case e == nil || e.phase != passing:
	case err == nil:
		m.forget(name, nil) // the target holds the key: no step back (see handedOff)
	default:
		m.passFailed(name, e, err)
	}
}

// passFailed deletes e's key after its Pass, or the check of the target's
// place before it, failed with err: with no marker, as the target may be
// gone (see Passed).
func (m *Machine) passFailed(name string, e *election, err error) {
	e.lastErr, e.passFailed = err, true
	m.release(name, e)
}

// handedOff ends e after its key was deleted, by its Delete (gone nil)
// or before it (gone says how: ErrNotFound, ErrSessionExpired). A
// campaign the leader starts again soon after a handover steps back (see
// Campaign), so as not to take the free key ahead of the target. After a
// pass the target holds the key already, and no campaign steps back: one
// that did would sit out a key the target released meanwhile, which it
// never saw held. Released says whether the handover was made (see
// unhanded).
func (m *Machine) handedOff(now time.Time, name string, e *election, gone error) {
	if e.to != "" && m.cfg.HoldOff > 0 {
		m.passed[name] = now.Add(m.cfg.HoldOff)
	}
	m.forget(name, m.unhanded(e, gone))
}

// ErrNotHandedOver: a handover ended without a write of the leader known
// to have handed the key to its target: a Pass that landed, or a Delete
// that landed with the marker naming the target beside the key
// (Config.MarkDelete) or in its value (a Proclaim that landed). The key
// was deleted plainly, or went with the leader's session, or an answer
// was lost; the normal election decides who leads next, the target
// perhaps among them. A Released that ends a handover wraps it, with
// the cause, in its Err.
var ErrNotHandedOver = errors.New("key not handed over")

// unhanded returns the Err of the Released that ends e: nil if e was
// not handing over (a resign with no target), or if e's key was deleted
// (cause nil) by the Delete that hands it over (see marked); else an
// error wrapping ErrNotHandedOver, cause, and the last store error of
// the handover (for a plain Delete, the one that made it plain).
func (m *Machine) unhanded(e *election, cause error) error {
	switch {
	case e.to == "", cause == nil && m.marked(e):
		return nil
	case cause == nil && e.lastErr == nil:
		return ErrNotHandedOver
	case cause == nil:
		return fmt.Errorf("%w: %w", ErrNotHandedOver, e.lastErr)
	case e.lastErr == nil:
		return fmt.Errorf("%w: %w", ErrNotHandedOver, cause)
	}
	return fmt.Errorf("%w: %w (last error: %w)", ErrNotHandedOver, cause, e.lastErr)
}

// marked reports whether a Delete of e's key hands it over: a Pass to
// the target did not fail, and the marker naming it is in the key's
// value (Proclaimed) or goes beside the key in the Delete (marksDelete).
func (m *Machine) marked(e *election) bool {
	return !e.passFailed && (e.proclaimed || m.marksDelete(e))
}

// Unmarked reports that the marked Delete op of name (one naming its
// target, Config.MarkDelete) is made without the marker: the store
// refused the marker, as the target was gone (backends.ErrNoCandidate)
// or for want of rights, and the driver deletes the key plainly and
// reports that with Deleted. The handover then hands nothing over (see
// unhanded); err says why.
func (m *Machine) Unmarked(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	e := m.els[name]
	if e == nil || !e.inflight || e.op != op || e.phase != releasing || !m.marksDelete(e) {
		return
	}
	e.lastErr, e.passFailed = err, true
}

// marksDelete reports whether e's Delete names its target
// (Config.MarkDelete), as it does in a handover unless a Pass to the
// target failed (the target is gone, or the outcome is unknown).
func (m *Machine) marksDelete(e *election) bool {
	return m.cfg.MarkDelete && e.to != "" && !e.passFailed
}

// Seen reports rec, a state of name's key that a read showed outside the
// call in flight: the answer to a watch that had been withdrawn or
// replaced by the time it came. It acts only on a key passed to this
// session (Config.Pass), which the call in flight may never report: a
// WatchSet answers a pass once, and a waiter in line watches the entry
// ahead, not the key. A waiting campaign then confirms it with a Get,
// and leads (see observedWaiting), as after Woken. Anything else is left
// to the call in flight, which sees the key's later states itself.
func (m *Machine) Seen(now time.Time, name string, rec backends.Record) {
	m.Tick(now)
	e := m.els[name]
	switch {
	case e == nil || e.phase != waiting || !m.cfg.Pass || m.cfg.NoLead:
	case !rec.Exists() || rec.Owner != m.SessionID():
	case e.inflight && e.kind == Get: // its answer tells
	default:
		e.line.gone = false
		m.call(e, Action{Kind: Get, Election: name})
	}
}

// confirming reports whether the waiting e last read the key passed to
// this session (Config.Pass), which it takes up once a Get confirms it
// (see observedWaiting). Its next call is that Get, never a Wait on the
// state read, as after a confirming Get that failed: a key bound to this
// session changes only by its writes or with its end, so such a Wait
// would not answer while the session lives, and no one would lead.
func (m *Machine) confirming(e *election) bool {
	return e.phase == waiting && m.cfg.Pass && !m.cfg.NoLead && m.passedToUs(e)
}

// passedToUs reports whether the waiting e last read the key bound to
// this session: passed to it (Pass), or made by a Create whose reply was
// lost. Such a key is taken up even while sitting out, or no one would
// hold it.
func (m *Machine) passedToUs(e *election) bool {
	return e.known.Exists() && e.known.Owner == m.SessionID()
}

// proclaim writes the handover marker naming e.to into e's key; cause as
// in handOff.
func (m *Machine) proclaim(name string, e *election, cause string) {
	e.phase, e.yieldUntil = proclaiming, time.Time{}
	m.call(e, Action{Kind: Proclaim, Election: name, Epoch: m.sess.epoch, Token: e.token, To: e.to, Cause: cause})
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
		e.proclaimed = true
		e.phase = nudging
		m.call(e, Action{Kind: Nudge, Election: name, To: e.to, Token: e.toQueue})
	default:
		e.proclaimed = true
		m.release(name, e)
	}
}

// Nudged reports the outcome of Nudge op for name. A woken target that
// is to be passed the key (see passes) is passed it; else, or if the
// nudge failed, the key is deleted next: an error only means the target
// learns of the handover from its queue later.
func (m *Machine) Nudged(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	switch e := m.result(name, op); {
	case e == nil || e.phase != nudging:
	case m.passes(e) && err == nil:
		m.pass(name, e, 0, "") // the target now watches the key
	default:
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
