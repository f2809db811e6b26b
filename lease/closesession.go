package lease

import (
	"context"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// closer is a session the machine gave up (it was lost, or made too
// late) and is closing: the core retries a failed close, for a bounded
// time (see lease/internal/core's closing.go), so that a session given
// up during an outage, and the keys and records bound to it, go once the
// store answers again rather than when the store expires it. The session
// stays tracked until it is closed, so that the elector's Close closes
// it if this does not.
type closer struct {
	s        backends.Session
	attempts int
}

// closeSession makes one attempt, bounded by RequestTimeout and ended by
// the elector's Close, to close the session of epoch: the core's
// CloseSession.
func (e *LeaseElector) closeSession(epoch uint64) {
	c := e.closing[epoch]
	if c == nil {
		s := e.sessions[epoch]
		if s == nil {
			return
		}
		delete(e.sessions, epoch)
		c = &closer{s: s}
		e.closing[epoch] = c
		e.log.Debug("session closing", "session", s.ID())
	}
	e.call(false, func(ctx context.Context) {
		err := c.s.Close(ctx)
		e.post(func(now time.Time) { e.sessionClosed(now, epoch, c, err) })
	})
}

// sessionClosed reports the outcome err of an attempt to close c, and forgets
// c once the core closes it no more.
func (e *LeaseElector) sessionClosed(now time.Time, epoch uint64, c *closer, err error) {
	c.attempts++
	if err != nil {
		e.log.Debug("abandoned session close failed", "session", c.s.ID(), "attempt", c.attempts, "err", err)
	}
	e.m.SessionClosed(now, epoch, err)
	if e.m.Closing(epoch) {
		return
	}
	delete(e.closing, epoch)
	switch {
	case err == nil:
		e.track(c.s, false)
		if c.attempts > 1 {
			e.log.Info("abandoned session closed", "session", c.s.ID(), "attempts", c.attempts)
		}
	case core.Permanent(err):
		e.log.Error("abandoned session not closed: the store refused", "session", c.s.ID(), "attempts", c.attempts, "err", err)
	default:
		e.log.Warn("abandoned session not closed; giving up, the store expires it", "session", c.s.ID(), "attempts", c.attempts, "err", err)
	}
}
