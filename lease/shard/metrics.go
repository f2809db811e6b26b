package shard

import "time"

// Metrics receives a member's measurements of its group. Methods are
// called from the group's goroutine, one call at a time per group, and
// must not block.
type Metrics interface {
	// Owned reports how many shards of group this member holds, after
	// each change.
	Owned(group string, n int)
	// HandedOver reports a shard this member handed over to its new
	// owner (a move), and how long the handover took, from the call of
	// Leadership.HandOver that made it to its return.
	HandedOver(group string, d time.Duration)
}

// noMetrics is the Metrics used when Options.Metrics is nil.
type noMetrics struct{}

func (noMetrics) Owned(string, int)                {}
func (noMetrics) HandedOver(string, time.Duration) {}
