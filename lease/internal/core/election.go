package core

import (
	"errors"
	"time"

	"github.com/leasehold/leasehold/backends"
)

type phase int

const (
	needSession phase = iota // campaigning, waiting for a live session
	creating                 // Create in flight or due
	waiting                  // another holds the key: Wait or Get in flight or due
	leading                  // we hold the key: watching it
	releasing                // Delete in flight or due
	yielding                 // we hold the key after Yield: watching it, awaiting Resign
	passing                  // handing over: Pass in flight
	clearing                 // campaigning: Delete of a term this session led already in flight or due (terms.go)
)

// holds reports whether e holds the key for the application or for a
// handover not yet under way: leading or yielding.
func (e *election) holds() bool { return e.phase == leading || e.phase == yielding }

// ending reports whether e is on its way out after its leadership: a
// handover's writes or the Delete.
func (e *election) ending() bool {
	return e.phase == releasing || e.phase == passing
}

// election is the core's state of one election it campaigns for or holds.
// The flags sit together at the end, not beside the fields they qualify:
// the elector keeps one per election it holds or waits for, and padding
// each to a word of its own put the struct in the next size class.
type election struct {
	phase   phase
	op      uint64          // the call in flight; results quoting another op are stale
	kind    Kind            // the kind of that call
	retryAt time.Time       // when !inflight: reissue the phase's call then
	known   backends.Record // state to Wait for a change from; Revision 0 means Get first
	token   uint64
	lastErr error

	// The policies' state (policy.go, handover.go, roster.go).
	roster     []Candidate          // holding: the last roster reported
	seen       map[string]time.Time // leading: when each candidate that may preempt was first seen
	preemptAt  time.Time            // leading: when the first of them may preempt
	to         string               // yielding and after: the target session
	toID       string               // yielding and after: the target's identity
	toQueue    uint64               // yielding and after: the target's queue entry token; 0: none
	yieldUntil time.Time            // yielding: hand over then without Resign
	holdUntil  time.Time            // waiting: create no key before then
	dampEnd    time.Time            // while damped: when it ends

	line line // queue mode: the place in the election's queue (queue.go)

	inflight bool // the phase's call is in flight
	canceled bool // the campaign was canceled while a Create was in flight, or unsure
	unsure   bool // creating: the last Create failed with an unknown outcome (it may have made the key)
	toWakes  bool // yielding and after: the target wakes in line when passed the key
	damped   bool // campaigning while damped, until dampEnd
	again    bool // ending: a new campaign starts when it has ended (Campaign)
}

// Start says how Campaign began a campaign.
type Start int

const (
	// Started: a new campaign, from its session and Create.
	Started Start = iota
	// Resumed: a campaign canceled while its Create, or its Delete of a
	// term it led already, was in flight or unsure goes on: that call's
	// outcome is the new campaign's, and no key it made is deleted.
	Resumed
	// After: the election's last term is still ending (its key being
	// deleted or passed, after a Resign or a canceled campaign that had
	// won). Its Released comes first; the new campaign starts at once
	// after it, unless that Released carries a permanent error.
	After
)

// Busy reports whether a Campaign of name must be refused: name is
// campaigning (a campaign not canceled) or holds the key.
func (m *Machine) Busy(name string) bool {
	e := m.els[name]
	return e != nil && !e.canceled && !e.ending()
}

// Campaign starts campaigning for name, or takes up a canceled campaign
// still finishing its calls, and says which (see Start). The caller
// ensures !Busy(name).
func (m *Machine) Campaign(now time.Time, name string) Start {
	m.Tick(now)
	switch e := m.els[name]; {
	case e == nil:
		m.start(now, name)
		return Started
	case e.ending():
		e.again = true
		return After
	default:
		e.canceled = false
		return Resumed
	}
}

func (m *Machine) start(now time.Time, name string) {
	e := &election{phase: needSession}
	m.els[name] = e
	m.startDamped(now, name, e)
	if m.sess.state == live {
		m.create(now, name, e)
		return
	}
	m.tickSession(now)
}

// Cancel stops the campaign for name. If a Create is in flight, the outcome
// is awaited and a key it made is deleted; so is the Delete of a key of a
// term this session led already (see terms.go). A held leadership is resigned:
// Lost with ErrResigned, then the key is passed to the top of the
// succession order if the roster shows one (see successor), else deleted.
// A yielding leadership goes on with its handover at once.
func (m *Machine) Cancel(now time.Time, name string) {
	m.Tick(now)
	e := m.els[name]
	switch {
	case e == nil:
	case e.ending():
		e.again = false // a campaign that waited for it is canceled
	case e.phase == yielding:
		m.handOff(name, e, "")
	case e.phase == leading:
		m.resignLeading(now, name, e)
	case e.phase == creating && (e.inflight || e.unsure), e.phase == clearing:
		e.canceled = true // a key it may have made is deleted (Created)
	default:
		m.forget(name, ErrCanceled)
	}
}

// Resign ends the leadership of name and deletes its key, or passes it on
// where Cancel says so. It is Cancel by another name: a campaign not
// yet won is canceled, and a yielding leadership completes its handover.
func (m *Machine) Resign(now time.Time, name string) { m.Cancel(now, name) }

// Created reports the outcome of Create op for name.
func (m *Machine) Created(now time.Time, name string, op uint64, rec backends.Record, err error) {
	m.Tick(now)
	e := m.result(name, op)
	if e != nil {
		e.unsure = err != nil && unknownOutcome(err)
		if e.unsure {
			m.markLate(name, lateCreate) // it may land later (late.go)
		}
	}
	switch {
	case e == nil:
	case err == nil && e.canceled:
		e.token = rec.Token
		m.leaveLine(name, e)
		m.resign(now, name, e, nil)
	case err == nil:
		m.won(name, e, rec)
	case e.canceled && unknownOutcome(err):
		// The Create may have taken the key after all. Made again, it
		// returns the key if it did (a retried Create), and the
		// canceled campaign deletes it; left, the key would be held by
		// this session, with no campaign, until the session ends.
		e.lastErr = err
		m.retry(now, name, e)
	case e.canceled:
		m.forget(name, ErrCanceled)
	case Permanent(err):
		m.forget(name, err)
	case errors.Is(err, backends.ErrKeyExists):
		e.phase, e.known = waiting, rec
		m.wait(name, e)
	case errors.Is(err, backends.ErrSessionExpired):
		e.lastErr = err
		m.sessionLost(now, err)
	default:
		e.lastErr = err
		m.retry(now, name, e)
	}
	m.standAfter(now, name, errors.Is(err, backends.ErrKeyExists) && !m.InLine(name))
}

// unknownOutcome reports whether a Create that failed with err may
// still have taken the key.
func unknownOutcome(err error) bool {
	return !errors.Is(err, backends.ErrKeyExists) && !errors.Is(err, backends.ErrSessionExpired) && !Permanent(err)
}

// won makes e lead with rec, the key bound to this session, unless this
// session led with its token already: then it ends that key and makes a
// new one (see terms.go).
func (m *Machine) won(name string, e *election, rec backends.Record) {
	if m.ledWith(name, rec.Token) {
		m.reclaim(name, e, rec)
		return
	}
	m.lead(name, rec.Token)
	e.phase, e.token, e.known = leading, rec.Token, rec
	m.emit(Action{Kind: Elected, Election: name, Epoch: m.sess.epoch, Record: rec})
	m.leaveLine(name, e)
	m.wait(name, e)
}

// Observed reports the outcome of Wait or Get op for name.
func (m *Machine) Observed(now time.Time, name string, op uint64, rec backends.Record, err error) {
	m.Tick(now)
	e := m.result(name, op)
	switch {
	case e == nil:
	case errors.Is(err, backends.ErrCompacted):
		e.known = backends.Record{}
		m.wait(name, e)
	case Permanent(err) && e.holds():
		m.resign(now, name, e, err)
	case Permanent(err):
		m.forget(name, err)
	case err != nil:
		e.lastErr = err
		m.retry(now, name, e)
	case e.holds() && rec.Token != e.token:
		m.lost(now, name, ErrKeyLost)
		m.drop(name)
	case e.phase == waiting:
		m.observedWaiting(now, name, e, rec)
	default:
		e.known = rec
		m.wait(name, e)
	}
	m.standAfter(now, name, err == nil)
}

// Deleted reports the outcome of Delete op for name.
func (m *Machine) Deleted(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	e := m.result(name, op)
	switch {
	case e == nil:
	case e.phase == clearing:
		m.cleared(now, name, e, err)
	case err == nil:
		m.handedOff(name, e, nil)
	case errors.Is(err, backends.ErrNotFound), errors.Is(err, backends.ErrSessionExpired):
		m.handedOff(name, e, err) // gone, but not by this Delete
	case Permanent(err):
		m.forget(name, err)
	default:
		e.lastErr = err
		m.retry(now, name, e)
	}
}

// result returns the election awaiting op, or nil if the result is stale.
func (m *Machine) result(name string, op uint64) *election {
	e := m.els[name]
	if e == nil || !e.inflight || e.op != op {
		return nil
	}
	e.inflight = false
	return e
}

// resume reissues the call of e's phase after a retry wait.
func (m *Machine) resume(now time.Time, name string, e *election) {
	switch e.phase {
	case creating:
		m.create(now, name, e)
	case waiting, leading, yielding:
		m.wait(name, e)
	case releasing, clearing:
		m.call(e, m.deleteAction(name, e))
	}
}

func (m *Machine) create(now time.Time, name string, e *election) {
	if m.sess.state != live {
		e.phase, e.inflight = needSession, false
		return // SessionCreated or the next tick picks it up
	}
	e.holdUntil = time.Time{}
	if m.sitsOut(now, e) && !m.passedToUs(e) {
		e.phase = waiting
		m.wait(name, e)
		return
	}
	e.phase = creating
	m.call(e, Action{Kind: Create, Election: name, Epoch: m.sess.epoch, Urgent: e.known.Revision != 0})
}

// wait makes e's next call to follow the key: Get if its state is not
// known, or if it is a key passed to this waiter that a Get is still to
// confirm (see confirming); a step in line if it waits in its queue (see
// queues); else Wait.
func (m *Machine) wait(name string, e *election) {
	switch {
	case e.known.Revision == 0, m.confirming(e):
		m.call(e, Action{Kind: Get, Election: name, Urgent: e.known.Revision != 0})
	case m.queues(e):
		m.lineStep(name, e)
	default:
		m.call(e, Action{Kind: Wait, Election: name, Record: e.known, Direct: m.direct(e)})
	}
}

func (m *Machine) resign(now time.Time, name string, e *election, cause error) {
	if cause != nil {
		m.lost(now, name, cause)
	}
	m.release(name, e)
}

// release deletes e's key; Released follows.
func (m *Machine) release(name string, e *election) {
	e.phase = releasing
	m.call(e, m.deleteAction(name, e))
}

// deleteAction returns the Delete of e's key.
func (m *Machine) deleteAction(name string, e *election) Action {
	return Action{Kind: Delete, Election: name, Epoch: m.sess.epoch, Token: e.token}
}

// lost reports the end of name's leadership with cause, and counts it
// towards damping unless the leader resigned.
func (m *Machine) lost(now time.Time, name string, cause error) {
	if !errors.Is(cause, ErrResigned) {
		m.recordLoss(now, name)
	}
	m.emit(Action{Kind: Lost, Election: name, Err: cause})
}

func (m *Machine) call(e *election, a Action) {
	delete(m.due, a.Election)
	e.op, e.kind, e.inflight, e.retryAt = m.op(), a.Kind, true, time.Time{}
	a.Op = e.op
	m.emit(a)
}

func (m *Machine) retry(now time.Time, name string, e *election) {
	e.inflight, e.retryAt = false, now.Add(m.cfg.retryWait())
	m.due[name] = e
}

// forget ends name's election and reports Released with err, then starts
// the campaign that waited for it to end, if any (After).
func (m *Machine) forget(name string, err error) {
	again := m.els[name] != nil && m.els[name].again
	m.drop(name)
	m.emit(Action{Kind: Released, Election: name, Err: err})
	if again && !Permanent(err) {
		m.start(m.recs.now, name)
	}
}

func (m *Machine) drop(name string) {
	if e := m.els[name]; e != nil {
		m.leaveLine(name, e)
	}
	delete(m.els, name)
	delete(m.due, name)
	delete(m.timed, name)
	m.standDown(name)
	m.lateAfter(name)
}

func (m *Machine) onSessionLost(now time.Time, name string, e *election, cause error) {
	switch {
	case e.holds():
		m.lost(now, name, cause)
		m.drop(name)
	case e.ending():
		m.forget(name, m.unhanded(e, cause)) // the key goes with the session
	case e.canceled:
		m.forget(name, ErrCanceled)
	case e.phase == creating, e.phase == clearing: // a key of this session goes with it
		e.phase, e.inflight, e.retryAt, e.token, e.unsure = needSession, false, time.Time{}, 0, false
		delete(m.due, name)
		e.lastErr = cause
	}
}
