package core

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/leasehold/leasehold/backends"
)

type sessState int

const (
	noSession sessState = iota
	creatingSession
	live
)

type session struct {
	state     sessState
	epoch     uint64
	id        string
	ttl       time.Duration // the TTL the holder's deadline counts from
	granted   time.Duration // the TTL the store granted
	deadline  time.Time     // the holder may act until then
	nextRenew time.Time
	renewing  bool
	retryAt   time.Time // earliest next CreateSession after a failure
}

func (m *Machine) sessionTimer() time.Time {
	s := &m.sess
	switch {
	case s.state == noSession && m.wantSession():
		return s.retryAt
	case s.state != live:
		return time.Time{}
	}
	if !s.renewing && s.nextRenew.Before(s.deadline) {
		return s.nextRenew
	}
	return s.deadline
}

// SessionCreated reports that CreateSession for epoch succeeded: the store
// named it id and granted ttl to a request sent at sentAt.
func (m *Machine) SessionCreated(now time.Time, epoch uint64, id string, ttl time.Duration, sentAt time.Time) {
	m.Tick(now)
	if epoch != m.sess.epoch || m.sess.state != creatingSession {
		m.closeSession(now, epoch, ttl)
		return
	}
	granted, ttl := ttl, min(ttl, m.cfg.TTL)
	m.sess = session{state: live, epoch: epoch, id: id, ttl: ttl, granted: granted,
		deadline: sentAt.Add(m.cfg.Hold(ttl)), nextRenew: m.cfg.RenewAt(sentAt, now.Sub(sentAt), ttl)}
	m.Tick(now)
	for _, name := range m.names() {
		if e := m.els[name]; e.phase == needSession {
			m.create(now, name, e)
		}
	}
	m.requeue()
	m.restand(now)
}

// SessionFailed reports that CreateSession for epoch failed. A permanent
// error fails every campaign at once (see SessionDenied); any other is
// retried after RetryInterval.
func (m *Machine) SessionFailed(now time.Time, epoch uint64, err error) {
	m.Tick(now)
	if epoch != m.sess.epoch || m.sess.state != creatingSession {
		return
	}
	m.sess = session{epoch: epoch, retryAt: now.Add(m.cfg.retryWait())}
	if Permanent(err) {
		m.sessionDenied(fmt.Errorf("create session: %w", err))
		return
	}
	for _, e := range m.els {
		if e.phase == needSession {
			e.lastErr = fmt.Errorf("create session: %w", err)
		}
	}
}

// Renewed reports that the Renew for epoch, sent at sentAt, succeeded.
// However late it comes, before the deadline it extends the deadline from
// sentAt, and the next renewal is scheduled from sentAt and the latency it
// showed (Config.RenewAt).
func (m *Machine) Renewed(now time.Time, epoch uint64, sentAt time.Time) {
	m.Tick(now)
	if epoch != m.sess.epoch || m.sess.state != live {
		return
	}
	m.sess.renewing = false
	if d := sentAt.Add(m.cfg.Hold(m.sess.ttl)); d.After(m.sess.deadline) {
		m.sess.deadline = d
	}
	m.sess.nextRenew = m.cfg.RenewAt(sentAt, now.Sub(sentAt), m.sess.ttl)
	m.Tick(now)
}

// RenewFailed reports that the Renew for epoch failed. An error wrapping
// backends.ErrSessionExpired or a permanent one (the holder's rights were
// revoked: the session cannot be kept, so its leaderships cannot be safely
// either) ends the session at once; any other is retried after
// RetryInterval while the deadline allows.
func (m *Machine) RenewFailed(now time.Time, epoch uint64, err error) {
	m.Tick(now)
	if epoch != m.sess.epoch || m.sess.state != live {
		return
	}
	m.sess.renewing = false
	if errors.Is(err, backends.ErrSessionExpired) || Permanent(err) {
		m.sessionLost(now, err)
		return
	}
	m.sess.nextRenew = now.Add(m.cfg.RetryInterval)
	m.Tick(now)
}

// Expired reports that the holder's deadline of session epoch was seen to
// pass before a renewal extended it: package lease's synchronous check
// (Leadership.Valid) read the clock at or after the deadline it last
// published, and said the leadership had ended. The session ends as if the
// deadline had passed, so that no leadership outlives a "no" given to the
// application; a renewal that succeeded meanwhile is ignored.
func (m *Machine) Expired(now time.Time, epoch uint64) {
	m.Tick(now)
	if epoch != m.sess.epoch || m.sess.state != live {
		return
	}
	m.sessionLost(now, ErrRenewDeadline)
}

func (m *Machine) tickSession(now time.Time) {
	s := &m.sess
	switch {
	case s.state == live && !now.Before(s.deadline):
		m.sessionLost(now, ErrRenewDeadline)
	case s.state == live && !s.renewing && !now.Before(s.nextRenew):
		s.renewing = true
		m.emit(Action{Kind: Renew, Epoch: s.epoch})
	case s.state == noSession && !now.Before(s.retryAt) && m.wantSession():
		s.epoch++
		s.state = creatingSession
		m.emit(Action{Kind: CreateSession, Epoch: s.epoch, TTL: m.cfg.TTL})
	}
}

// WantSession asks for a live session even with no campaign under way. The
// session is kept from then on.
func (m *Machine) WantSession(now time.Time) {
	m.keep = true
	m.Tick(now)
}

// wantSession reports whether a session should be made: one was asked for,
// or a campaign is under way, so that a waiter can create the key the
// moment it goes.
func (m *Machine) wantSession() bool {
	if m.keep {
		return true
	}
	for _, e := range m.els {
		if !e.holds() && !e.ending() {
			return true
		}
	}
	return false
}

// sessionLost ends the current session: leaderships on it are lost, in
// name order, and campaigns go on with a new session. The old one is
// closed so that its keys go before the store expires it: a Margin later
// if its holder's deadline passed (cause ErrRenewDeadline), so that the
// holder's work has the margin to stop before another can lead, and at
// once otherwise.
func (m *Machine) sessionLost(now time.Time, cause error) {
	at := now
	if errors.Is(cause, ErrRenewDeadline) {
		at = now.Add(m.cfg.Margin)
	}
	m.closeSessionAt(now, at, m.sess.epoch, m.sess.granted)
	m.sess = session{epoch: m.sess.epoch, retryAt: now}
	m.lineLost()
	clear(m.lates) // a late create's key goes with the session (late.go)
	for _, name := range m.names() {
		if e := m.els[name]; e != nil {
			m.onSessionLost(now, name, e, cause)
		}
	}
	m.tickSession(now)
}

// sessionDenied gives up on making a session: the session is no longer
// kept, and every campaign (an election neither holding its key nor
// ending; none can hold one without a session) is released with err, in name
// order.
func (m *Machine) sessionDenied(err error) {
	m.keep = false
	m.emit(Action{Kind: SessionDenied, Err: err})
	var names []string
	for name, e := range m.els {
		if !e.holds() && !e.ending() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		m.forget(name, err)
	}
}
