package core

import (
	"slices"
	"time"
)

// Closing a session given up (it was lost, or made too late). A session
// lost because its holder's deadline passed is closed only SafetyMargin
// (Config.Margin) later: the holder's context ends at the deadline, and
// the margin is the time its work has to stop before another may lead.
// Closing at once would free its keys at that very moment. Any other loss
// (the store expired or refused the session) closes at once. The
// machine asks for the close (CloseSession), and retries it after the
// retry wait while the store cannot be reached, so that a session given
// up during an outage, and the keys and records bound to it, go once the
// store answers again rather than when the store expires it. It stops
// when the close succeeds (closing an expired session succeeds too), when
// the store refuses it for good (Permanent), or once closeBound has
// passed since the first attempt (closeBound): by then the store has expired the
// session on its own.

// closing is a session being closed.
type closing struct {
	until    time.Time // no retry after then
	retryAt  time.Time // when !inflight: close again then
	inflight bool
}

// closeBound is how long the machine tries to close a session of TTL
// ttl, as the store granted it: by then any store has expired the
// session on its own.
func closeBound(ttl time.Duration) time.Duration { return max(10*ttl, time.Minute) }

// closeSession asks for the close of session epoch, whose store TTL is
// ttl, at once.
func (m *Machine) closeSession(now time.Time, epoch uint64, ttl time.Duration) {
	m.closeSessionAt(now, now, epoch, ttl)
}

// closeSessionAt asks for the close of session epoch, whose store TTL is
// ttl, at time at: not before, so that keys bound to it stay until then.
func (m *Machine) closeSessionAt(now, at time.Time, epoch uint64, ttl time.Duration) {
	if m.recs.closing == nil {
		m.recs.closing = make(map[uint64]*closing)
	}
	cl := &closing{until: at.Add(closeBound(ttl)), retryAt: at}
	m.recs.closing[epoch] = cl
	if !now.Before(at) {
		cl.inflight = true
		m.emit(Action{Kind: CloseSession, Epoch: epoch})
	}
}

// SessionClosed reports the outcome of the CloseSession for epoch. A
// failure other than a permanent one is retried after the retry wait,
// unless closeBound has passed since the first attempt.
func (m *Machine) SessionClosed(now time.Time, epoch uint64, err error) {
	m.Tick(now)
	cl := m.recs.closing[epoch]
	if cl == nil || !cl.inflight {
		return
	}
	if err == nil || Permanent(err) || !now.Before(cl.until) {
		delete(m.recs.closing, epoch)
		return
	}
	cl.inflight, cl.retryAt = false, now.Add(m.cfg.retryWait())
}

// Closing reports whether the machine still closes session epoch: its
// CloseSession is in flight, or is to be made again. Once it is not, the
// driver may forget the session.
func (m *Machine) Closing(epoch uint64) bool { return m.recs.closing[epoch] != nil }

// tickClosing makes the closes that are due again, in epoch order.
func (m *Machine) tickClosing(now time.Time) {
	var due []uint64
	for epoch, cl := range m.recs.closing {
		if !cl.inflight && !now.Before(cl.retryAt) {
			due = append(due, epoch)
		}
	}
	slices.Sort(due)
	for _, epoch := range due {
		m.recs.closing[epoch].inflight = true
		m.emit(Action{Kind: CloseSession, Epoch: epoch})
	}
}
