package lease

import (
	"context"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// closeSession closes the session of epoch, which the machine has given
// up (it was lost, or made too late), in a goroutine owned by the elector
// (see closeAbandoned).
func (e *LeaseElector) closeSession(epoch uint64) {
	s := e.sessions[epoch]
	if s == nil {
		return
	}
	delete(e.sessions, epoch)
	e.log.Debug("session closing", "session", s.ID())
	e.io.Add(1)
	go func() {
		defer e.io.Done()
		e.closeAbandoned(s)
	}()
}

// closeAbandoned closes s, retrying after RetryInterval (with jitter)
// while the store cannot be reached, so that a session given up during an
// outage, and the records bound to it, go once the store answers again
// rather than when the store expires it. It stops when the close succeeds
// (closing an expired session succeeds too), when the store refuses it
// for good, after closeBound, or when the elector closes. s stays tracked
// until it is closed, so that the elector's Close closes it if this does
// not.
func (e *LeaseElector) closeAbandoned(s backends.Session) {
	until := time.Now().Add(closeBound(s.TTL()))
	for n := 1; e.ctx.Err() == nil; n++ {
		err := e.closeOnce(s)
		switch {
		case err == nil:
			e.track(s, false)
			if n > 1 {
				e.log.Info("abandoned session closed", "session", s.ID(), "attempts", n)
			}
			return
		case e.ctx.Err() != nil:
			return
		case core.Permanent(err):
			e.log.Error("abandoned session not closed: the store refused", "session", s.ID(), "attempts", n, "err", err)
			return
		}
		e.log.Debug("abandoned session close failed", "session", s.ID(), "attempt", n, "err", err)
		if !time.Now().Before(until) {
			e.log.Warn("abandoned session not closed; giving up, the store expires it", "session", s.ID(), "attempts", n, "err", err)
			return
		}
		e.pause(e.ctx, jitter(e.opts.RetryInterval))
	}
}

// closeOnce makes one attempt to close s, bounded by RequestTimeout and
// ended by the elector's Close.
func (e *LeaseElector) closeOnce(s backends.Session) error {
	ctx, cancel := context.WithTimeout(e.ctx, e.opts.RequestTimeout)
	defer cancel()
	return s.Close(ctx)
}

// closeBound is how long closeAbandoned tries to close a session of TTL
// ttl: by then any store has expired the session on its own.
func closeBound(ttl time.Duration) time.Duration { return max(10*ttl, time.Minute) }
