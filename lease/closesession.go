package lease

import (
	"context"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// session is a store session the elector made, by the machine's epoch,
// until it is closed. A session the machine gave up (it was lost, or
// made too late) is closing: the core retries a failed close, for a
// bounded time (see lease/internal/core's closing.go), so that a session
// given up during an outage, and the keys and records bound to it, go
// once the store answers again rather than when the store expires it. It
// stays tracked until it is closed, so that the elector's Close closes
// it if this does not. Owned by the loop goroutine.
type session struct {
	backends.Session
	closing  bool // given up: no action uses it but CloseSession
	attempts int  // the attempts to close it
}

// session returns the session of epoch for an action, or nil if it is
// closing or gone.
func (e *LeaseElector) session(epoch uint64) backends.Session {
	if s := e.sessions[epoch]; s != nil && !s.closing {
		return s.Session
	}
	return nil
}

// closeSession makes one attempt, bounded by RequestTimeout and ended by
// the elector's Close, to close the session of epoch: the core's
// CloseSession.
func (e *LeaseElector) closeSession(epoch uint64) {
	c := e.sessions[epoch]
	if c == nil {
		return
	}
	if !c.closing {
		c.closing = true
		e.log.Debug("session closing", "session", c.ID())
	}
	e.call(noSlot, func(ctx context.Context) {
		err := c.Close(ctx)
		e.post(func(now time.Time) { e.sessionClosed(now, epoch, c, err) })
	})
}

// sessionClosed reports the outcome err of an attempt to close c, and forgets
// c once the core closes it no more.
func (e *LeaseElector) sessionClosed(now time.Time, epoch uint64, c *session, err error) {
	c.attempts++
	if err != nil {
		e.log.Debug("abandoned session close failed", "session", c.ID(), "attempt", c.attempts, "err", err)
	}
	e.m.SessionClosed(now, epoch, err)
	if e.m.Closing(epoch) {
		return
	}
	delete(e.sessions, epoch)
	switch {
	case err == nil:
		e.track(c.Session, false)
		if c.attempts > 1 {
			e.log.Info("abandoned session closed", "session", c.ID(), "attempts", c.attempts)
		}
	case core.Permanent(err):
		e.log.Error("abandoned session not closed: the store refused", "session", c.ID(), "attempts", c.attempts, "err", err)
	default:
		e.log.Warn("abandoned session not closed; giving up, the store expires it", "session", c.ID(), "attempts", c.attempts, "err", err)
	}
}
