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
)

type election struct {
	phase    phase
	op       uint64 // the call in flight; results quoting another op are stale
	inflight bool
	retryAt  time.Time       // when !inflight: reissue the phase's call then
	known    backends.Record // state to Wait for a change from; Revision 0 means Get first
	token    uint64
	canceled bool // the campaign was canceled while a Create was in flight
	lastErr  error
}

// Campaign starts campaigning for name. The caller ensures name is not
// already campaigning or held.
func (m *Machine) Campaign(now time.Time, name string) {
	m.Tick(now)
	e := &election{phase: needSession}
	m.els[name] = e
	if m.sess.state == live {
		m.create(name, e)
		return
	}
	m.tickSession(now)
}

// Cancel stops the campaign for name. If a Create is in flight, the outcome
// is awaited and a key it made is deleted. A held leadership is resigned.
func (m *Machine) Cancel(now time.Time, name string) {
	m.Tick(now)
	e := m.els[name]
	switch {
	case e == nil || e.phase == releasing:
	case e.phase == leading:
		m.resign(name, e, ErrResigned)
	case e.phase == creating && e.inflight:
		e.canceled = true
	default:
		m.forget(name, ErrCanceled)
	}
}

// Resign ends the leadership of name and deletes its key. It is Cancel by
// another name: a campaign not yet won is canceled.
func (m *Machine) Resign(now time.Time, name string) { m.Cancel(now, name) }

// Created reports the outcome of Create op for name.
func (m *Machine) Created(now time.Time, name string, op uint64, rec backends.Record, err error) {
	m.Tick(now)
	e := m.result(name, op)
	switch {
	case e == nil:
	case err == nil && e.canceled:
		e.token = rec.Token
		m.resign(name, e, nil)
	case err == nil:
		e.phase, e.token, e.known = leading, rec.Token, rec
		m.emit(Action{Kind: Elected, Election: name, Epoch: m.sess.epoch, Record: rec})
		m.wait(name, e)
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
	case Permanent(err) && e.phase == leading:
		m.resign(name, e, err)
	case Permanent(err):
		m.forget(name, err)
	case err != nil:
		e.lastErr = err
		m.retry(now, name, e)
	case e.phase == leading && rec.Token != e.token:
		m.emit(Action{Kind: Lost, Election: name, Err: ErrKeyLost})
		m.drop(name)
	case e.phase == waiting && (!rec.Exists() || rec.Owner == m.sess.id):
		m.create(name, e)
		m.tickSession(now)
	default:
		e.known = rec
		m.wait(name, e)
	}
}

// Deleted reports the outcome of Delete op for name.
func (m *Machine) Deleted(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	e := m.result(name, op)
	switch {
	case e == nil:
	case err == nil, errors.Is(err, backends.ErrNotFound), errors.Is(err, backends.ErrSessionExpired):
		m.forget(name, nil)
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
		m.create(name, e)
	case waiting, leading:
		m.wait(name, e)
	case releasing:
		m.call(e, Action{Kind: Delete, Election: name, Epoch: m.sess.epoch, Token: e.token})
	}
}

func (m *Machine) create(name string, e *election) {
	if m.sess.state != live {
		e.phase, e.inflight = needSession, false
		return // SessionCreated or the next tick picks it up
	}
	e.phase = creating
	m.call(e, Action{Kind: Create, Election: name, Epoch: m.sess.epoch})
}

func (m *Machine) wait(name string, e *election) {
	if e.known.Revision == 0 {
		m.call(e, Action{Kind: Get, Election: name})
		return
	}
	m.call(e, Action{Kind: Wait, Election: name, Record: e.known})
}

func (m *Machine) resign(name string, e *election, cause error) {
	if cause != nil {
		m.emit(Action{Kind: Lost, Election: name, Err: cause})
	}
	e.phase = releasing
	m.call(e, Action{Kind: Delete, Election: name, Epoch: m.sess.epoch, Token: e.token})
}

func (m *Machine) call(e *election, a Action) {
	delete(m.due, a.Election)
	e.op, e.inflight, e.retryAt = m.op(), true, time.Time{}
	a.Op = e.op
	m.emit(a)
}

func (m *Machine) retry(now time.Time, name string, e *election) {
	e.inflight, e.retryAt = false, now.Add(m.cfg.retryWait())
	m.due[name] = e
}

func (m *Machine) forget(name string, err error) {
	m.drop(name)
	m.emit(Action{Kind: Released, Election: name, Err: err})
}

func (m *Machine) drop(name string) {
	delete(m.els, name)
	delete(m.due, name)
}

func (m *Machine) onSessionLost(name string, e *election, cause error) {
	switch {
	case e.phase == leading:
		m.emit(Action{Kind: Lost, Election: name, Err: cause})
		m.drop(name)
	case e.phase == releasing:
		m.forget(name, nil) // the key goes with the session
	case e.canceled:
		m.forget(name, ErrCanceled)
	case e.phase == creating:
		e.phase, e.inflight, e.retryAt = needSession, false, time.Time{}
		delete(m.due, name)
		e.lastErr = cause
	}
}
