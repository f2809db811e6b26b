package lease

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// health is the state the HTTP handlers read without going through the
// elector's loop, so that they still answer when the loop is stuck.
type health struct {
	base     time.Time    // monotonic origin of the offsets below
	deadline atomic.Int64 // holder's deadline, ns after base; 0: no live session
	held     atomic.Int64 // leaderships held
}

func (h *health) setDeadline(d time.Time) {
	if d.IsZero() {
		h.deadline.Store(0)
		return
	}
	h.deadline.Store(int64(d.Sub(h.base)))
}

// Healthz returns an http.Handler for a liveness probe. It answers 500 when
// this elector leads something and its renewal deadline passed more than
// tolerance ago without the leadership ending: the elector is then stuck,
// and the process should be restarted. Otherwise it answers 200. This is
// client-go's HealthzAdaptor check.
func (e *LeaseElector) Healthz(tolerance time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := &e.health
		if d := h.deadline.Load(); d != 0 && h.held.Load() > 0 {
			if late := time.Since(h.base) - time.Duration(d); late > tolerance {
				http.Error(w, fmt.Sprintf("leader is %v past its renewal deadline", late.Round(time.Millisecond)),
					http.StatusInternalServerError)
				return
			}
		}
		fmt.Fprintln(w, "ok")
	})
}

// Readyz returns an http.Handler for a readiness probe. It answers 200 when
// the elector has a live store session, so it can take a leader key the
// moment it is freed, and 503 otherwise. An elector gets a session at its
// first Campaign or AwaitSession.
func (e *LeaseElector) Readyz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if e.health.deadline.Load() == 0 {
			http.Error(w, "no live store session", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
}
