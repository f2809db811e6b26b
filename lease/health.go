package lease

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// health is the state read without going through the elector's loop: by
// the HTTP handlers, so that they still answer when the loop is stuck, and
// by Leadership.Valid, which must not wait for the loop.
type health struct {
	hold atomic.Pointer[hold] // the live session's holder deadline; nil: no live session
	held atomic.Int64         // leaderships held
}

// Healthz returns an http.Handler for a liveness probe. It answers 500 when
// this elector leads something and its renewal deadline passed more than
// tolerance ago without the leadership ending: the elector is then stuck,
// and the process should be restarted. Otherwise it answers 200. This is
// client-go's HealthzAdaptor check. An elector that New did not make
// answers 500.
func (e *LeaseElector) Healthz(tolerance time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if err := e.check("healthz"); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h := &e.health
		if p := h.hold.Load(); p != nil && h.held.Load() > 0 {
			if late := time.Since(p.deadline); late > tolerance {
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
// first Campaign or AwaitSession; one that New did not make never does.
func (e *LeaseElector) Readyz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if err := e.check("readyz"); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		if e.health.hold.Load() == nil {
			http.Error(w, "no live store session", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
}
