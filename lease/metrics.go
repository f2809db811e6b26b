package lease

import (
	"errors"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Metrics receives an elector's measurements. Package metrics/prom
// implements it with Prometheus; an application that does not want that
// dependency leaves Options.Metrics nil or implements these four methods.
// Methods are called from the elector's goroutines, one call at a time per
// elector, and must not block.
type Metrics interface {
	// Leading reports that this elector began (true) or stopped (false)
	// leading election. Every false follows a true.
	Leading(election string, leading bool)
	// Acquired reports how long a Campaign took, from its call to the win.
	Acquired(election string, d time.Duration)
	// Renewed reports the round trip of a successful session renewal.
	Renewed(d time.Duration)
	// Lost reports why a leadership ended: one of the Reason* constants.
	Lost(election, reason string)
}

// Reasons a leadership ended, as given to Metrics.Lost and logged.
const (
	ReasonResigned       = "resigned"
	ReasonRenewDeadline  = "renew_deadline"
	ReasonSessionExpired = "session_expired"
	ReasonKeyLost        = "key_lost"
	ReasonPermission     = "permission"
	ReasonClosed         = "closed"
	ReasonOther          = "other"
)

// Reason classifies the cause of a lost leadership (Leadership.Err) as one
// of the Reason* constants.
func Reason(cause error) string {
	switch {
	case errors.Is(cause, ErrResigned):
		return ReasonResigned
	case errors.Is(cause, ErrRenewDeadline):
		return ReasonRenewDeadline
	case errors.Is(cause, backends.ErrSessionExpired):
		return ReasonSessionExpired
	case errors.Is(cause, ErrKeyLost):
		return ReasonKeyLost
	case errors.Is(cause, backends.ErrPermission):
		return ReasonPermission
	case errors.Is(cause, ErrClosed):
		return ReasonClosed
	}
	return ReasonOther
}

// noMetrics is the Metrics used when Options.Metrics is nil.
type noMetrics struct{}

func (noMetrics) Leading(string, bool)           {}
func (noMetrics) Acquired(string, time.Duration) {}
func (noMetrics) Renewed(time.Duration)          {}
func (noMetrics) Lost(string, string)            {}
