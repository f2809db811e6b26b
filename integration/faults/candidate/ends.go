package main

import (
	"sync"
	"time"

	"github.com/leasehold/leasehold/integration/history"
	"github.com/leasehold/leasehold/lease"
)

// endings dates the ends of this candidate's leaderships, for the Unlead
// events (history check b). The elector calls Metrics.Leading(false), or
// PolicyMetrics.Handover for a handover, on its own goroutine right after
// it cancels a leadership's context, so each call's time is an upper
// bound of the cancel, taken on the goroutine that cancelled (a resign's
// Handover comes with its pass, and is not used). The
// writer's own notice of the cancel (context.AfterFunc, or its check
// before a write) is another, which a loaded machine can delay by tens of
// milliseconds while the successor already leads; the Unlead takes the
// earlier of the two. Either bound follows the cancel, so a cancel that
// came after the successor began to lead still shows as an overlap.
type endings struct {
	mu sync.Mutex
	at map[string][]history.Time // by election: the latest calls, oldest first
}

// keptEnds is how many calls endings keeps per election.
const keptEnds = 8

func newEndings() *endings { return &endings{at: map[string][]history.Time{}} }

// mark notes a call for election, now.
func (n *endings) mark(election string) {
	now := history.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	ts := append(n.at[election], now)
	if len(ts) > keptEnds {
		ts = ts[len(ts)-keptEnds:]
	}
	n.at[election] = ts
}

// end returns the Unlead time of a leadership of election recorded as
// begun at from, noticed by the writer at noticed: the first call at or
// after from, if it is earlier than noticed, else noticed.
func (n *endings) end(election string, from, noticed history.Time) history.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, t := range n.at[election] {
		if t >= from {
			return min(t, noticed)
		}
	}
	return noticed
}

// The lease.Metrics and lease.PolicyMetrics methods: Leading(false) and
// Handover mark an end.

func (n *endings) Leading(election string, leading bool) {
	if !leading {
		n.mark(election)
	}
}
func (n *endings) Handover(election, cause string) {
	if cause != lease.CauseResign { // a resign's comes with its pass; Leading(false) with its cancel
		n.mark(election)
	}
}
func (*endings) Acquired(string, time.Duration) {}
func (*endings) Renewed(time.Duration)          {}
func (*endings) Lost(string, string)            {}
func (*endings) Damped(string, bool)            {}

var _ lease.PolicyMetrics = (*endings)(nil)
