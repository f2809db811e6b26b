package shard

import (
	"errors"

	"github.com/leasehold/leasehold/lease"
)

// ReasonHandover is the Reason of a shard this member handed over to its
// new owner (lease.ErrHandover).
const ReasonHandover = "handover"

// Event says that this member began or stopped holding a shard.
type Event struct {
	// Shard is the shard, in [0, Options.Shards).
	Shard int
	// Leadership is the shard's leadership: the one won (Released false)
	// or the one that ended (Released true). Act on the shard only while
	// it is valid (Leadership.Valid), and send its Token with each write.
	Leadership *lease.Leadership
	// Released is true when the leadership ended.
	Released bool
	// Reason says why a leadership ended: ReasonHandover, or
	// lease.Reason of its cause (lease.ReasonResigned on Leave, ...).
	// Empty when Released is false.
	Reason string
}

// reason classifies the cause of a shard's lost leadership.
func reason(cause error) string {
	if errors.Is(cause, lease.ErrHandover) {
		return ReasonHandover
	}
	return lease.Reason(cause)
}
