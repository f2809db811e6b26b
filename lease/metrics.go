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
	// leading election. Every false follows a true, and comes after the
	// leadership's context is cancelled.
	Leading(election string, leading bool)
	// Acquired reports how long a Campaign took, from its call to the win.
	Acquired(election string, d time.Duration)
	// Renewed reports the round trip of a successful session renewal.
	Renewed(d time.Duration)
	// Lost reports why a leadership ended: one of the Reason* constants.
	Lost(election, reason string)
}

// PolicyMetrics is an optional extension of Metrics for the election
// policies (see Options.Preempt, Options.Damping). The elector calls it by
// type assertion on Options.Metrics, so a Metrics that does not implement
// it keeps working. Its methods are called as Metrics' are: from the
// elector's goroutines, one call at a time per elector, and must not
// block.
type PolicyMetrics interface {
	// Handover reports that this elector, leading election, gave the
	// leadership up on purpose to another candidate. cause is one of the
	// Cause* constants. It comes after the leadership's context is
	// cancelled and before the key is passed on, but for CauseResign,
	// which comes with the pass.
	Handover(election, cause string)
	// Damped reports that this elector's candidacy in election began
	// (true) or stopped (false) sitting out a flap-damping penalty. Every
	// false follows a true.
	Damped(election string, damped bool)
}

// Causes of a handover, as given to PolicyMetrics.Handover.
const (
	// CauseHandover: Leadership.HandOver.
	CauseHandover = "handover"
	// CausePreempt: a candidate of higher priority (Options.Preempt).
	CausePreempt = "preempt"
	// CauseRequest: a request from outside the leader, such as
	// leasehold handover.
	CauseRequest = "request"
	// CauseResign: a resign that passed the key to the top of the
	// succession order.
	CauseResign = "resign"
)

// Reasons a leadership ended, as given to Metrics.Lost and logged.
const (
	ReasonResigned       = "resigned"
	ReasonRenewDeadline  = "renew_deadline"
	ReasonSessionExpired = "session_expired"
	ReasonKeyLost        = "key_lost"
	ReasonPermission     = "permission"
	ReasonTLS            = "tls"
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
	case errors.Is(cause, backends.ErrTLS):
		return ReasonTLS
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

// policyMetrics returns Options.Metrics as a PolicyMetrics, or one that
// records nothing if it is not one.
func (e *LeaseElector) policyMetrics() PolicyMetrics {
	if p, ok := e.opts.Metrics.(PolicyMetrics); ok {
		return p
	}
	return noMetrics{}
}

func (noMetrics) Handover(string, string) {}
func (noMetrics) Damped(string, bool)     {}
