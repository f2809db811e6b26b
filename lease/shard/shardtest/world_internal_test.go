package shardtest

import (
	"testing"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
)

// TestMovesEitherOrder: a hand-off counts as one move whether the new
// holder's acquire or the old holder's release is recorded first, since
// each member's reader tells its own events.
func TestMovesEitherOrder(t *testing.T) {
	for _, acquireFirst := range []bool{false, true} {
		w := &World{t: t, shards: 1, changed: make(chan struct{}), holders: []map[string]bool{{}},
			acquires: make([][]acquire, 1), releases: map[string]map[string]int{}, lastRel: make([]release, 1)}
		w.record("a", shard.Event{Leadership: &lease.Leadership{Token: 1}})
		rel := shard.Event{Leadership: &lease.Leadership{Token: 1}, Released: true, Reason: shard.ReasonHandover}
		acq := shard.Event{Leadership: &lease.Leadership{Token: 2}}
		if acquireFirst {
			w.record("b", acq)
			w.record("a", rel)
		} else {
			w.record("a", rel)
			w.record("b", acq)
		}
		if w.moves != 1 {
			t.Errorf("acquire first %v: %d moves, want 1", acquireFirst, w.moves)
		}
	}
}
