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
// YieldTimeout has passed, it passes the key to the target in one write
// (Pass; backends.Capabilities.Passes). The target learns of it from its
// wait on the key, or in line (see Candidate.Wakes), and leads with the
// key bound to its session: on a Get, or on a wait's answer that states
// a fact (Config.PassFacts). A key bound to a session moves only by that
// session's own writes, or ends with it, so such a read is as good as a
// create's. Only a target that watches the key, or wakes in line when
// passed it, may be passed to, or it would hold the key unawares: the
// leader first looks up the place of a target that waits in a queue and
// does not wake there (Ahead, see passcheck.go). If the pass cannot be
// made (the target is gone, it waits behind others and would not wake,
// or the store refuses), the key is deleted plainly and the normal
// election decides.

// HandOver hands the leadership of name over to to: a session ID or an
// identity from the last Roster, or "" for the next in succession order
// (Priority descending, then Order ascending; a candidate that may lead,
// is not damped, is not a request and is not this session). It emits
// Yield, then, after Resign(name) or YieldTimeout, the hand-off (see
// handOff: Pass, after an Ahead for a target in line that does not wake
// there, or a Delete if it cannot be made), and Released at the end:
// with no Err if the key was passed, else wrapping ErrNotHandedOver (see
// unhanded). With no such candidate it resigns as Resign does with no
// handover (Lost with ErrResigned, Delete, Released). It does nothing unless name is leading (not yielding).
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
}

// handOff passes e's key to e.to, after checking the place of a target
// that waits in line and does not wake there (Candidate.Wakes). Its first
// action carries cause if the handover had no Yield (CauseResign).
func (m *Machine) handOff(name string, e *election, cause string) {
	if e.toQueue != 0 && !e.toWakes {
		m.checkLine(name, e, cause)
		return
	}
	m.pass(name, e, e.toQueue, cause)
}

// pass passes e's key to e.to; queue is the entry the target waits with,
// 0 if it watches the key (Action.Queue).
func (m *Machine) pass(name string, e *election, queue uint64, cause string) {
	e.phase, e.yieldUntil = passing, time.Time{}
	m.call(e, Action{Kind: Pass, Election: name, Epoch: m.sess.epoch, Token: e.token, To: e.to, ToID: e.toID, Queue: queue, Cause: cause})
}

// Passed reports the outcome of Pass op for name. On success the
// handover is done. An error deletes the key, and the normal election
// decides: the target is gone, or the key was lost, or
// the outcome is unknown (a Delete then finds a passed key gone).
func (m *Machine) Passed(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	e := m.result(name, op)
	switch {
	case e == nil || e.phase != passing:
	case err == nil:
		m.forget(name, nil) // the target holds the key
	default:
		m.passFailed(name, e, err)
	}
}

// passFailed deletes e's key after its Pass, or the check of the target's
// place before it, failed with err (see Passed).
func (m *Machine) passFailed(name string, e *election, err error) {
	e.lastErr = err
	m.release(name, e)
}

// handedOff ends e after its key was deleted, by its Delete (gone nil)
// or before it (gone says how: ErrNotFound, ErrSessionExpired). Released
// says whether a handover was made (see unhanded).
func (m *Machine) handedOff(name string, e *election, gone error) {
	m.forget(name, m.unhanded(e, gone))
}

// ErrNotHandedOver: a handover ended without a write of the leader known
// to have handed the key to its target, a Pass that landed. The key was
// deleted plainly, or went with the leader's session, or an answer
// was lost; the normal election decides who leads next, the target
// perhaps among them. A Released that ends a handover wraps it, with
// the cause, in its Err.
var ErrNotHandedOver = errors.New("key not handed over")

// unhanded returns the Err of the Released that ends e after a Delete:
// nil if e was not handing over (a resign with no target); else an error
// wrapping ErrNotHandedOver, cause, and the last store error of the
// handover (the one that made the Delete plain).
func (m *Machine) unhanded(e *election, cause error) error {
	switch {
	case e.to == "":
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

// Seen reports rec, a state of name's key that a read showed outside the
// call in flight: the answer to a watch that had been withdrawn or
// replaced by the time it came. It acts only on a key passed to this
// session, which the call in flight may never report: a
// WatchSet answers a pass once, and a waiter in line watches the entry
// ahead, not the key. A waiting campaign then confirms it with a Get,
// and leads (see observedWaiting), as after Woken. Anything else is left
// to the call in flight, which sees the key's later states itself.
func (m *Machine) Seen(now time.Time, name string, rec backends.Record) {
	m.Tick(now)
	e := m.els[name]
	switch {
	case e == nil || e.phase != waiting || m.cfg.NoLead:
	case !rec.Exists() || rec.Owner != m.SessionID():
	case e.inflight && e.kind == Get: // its answer tells
	default:
		m.call(e, Action{Kind: Get, Election: name})
	}
}

// confirming reports whether the waiting e last read the key passed to
// this session, which it takes up once a Get confirms it
// (see observedWaiting). Its next call is that Get, never a Wait on the
// state read, as after a confirming Get that failed: a key bound to this
// session changes only by its writes or with its end, so such a Wait
// would not answer while the session lives, and no one would lead.
func (m *Machine) confirming(e *election) bool {
	return e.phase == waiting && !m.cfg.NoLead && m.passedToUs(e)
}

// passedToUs reports whether the waiting e last read the key bound to
// this session: passed to it (Pass), or made by a Create whose reply was
// lost. Such a key is taken up even while sitting out, or no one would
// hold it.
func (m *Machine) passedToUs(e *election) bool {
	return e.known.Exists() && e.known.Owner == m.SessionID()
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
