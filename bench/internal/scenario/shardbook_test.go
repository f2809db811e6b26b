package scenario

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease/shard"
)

// TestBook follows a group of 4 shards through a cold start, a handover
// whose new holder's win arrives before the old one's release, and a
// release without a successor: balance, holders and the longest gap
// follow the events.
func TestBook(t *testing.T) {
	b := newBook(3, 4)
	win := func(i, s int) { b.record(i, shard.Event{Shard: s}) }
	lose := func(i, s int, why string) { b.record(i, shard.Event{Shard: s, Released: true, Reason: why}) }
	check := func(what string, got, want bool) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	for s := range 4 {
		win(0, s)
	}
	check("one member holds all: balanced over {0}", b.balanced([]int{0}), true)
	check("balanced over {0,1}", b.balanced([]int{0, 1}), false)
	b.mark()
	win(1, 2) // the new holder's event before the old one's
	check("shard 2 held twice: balanced over {0,1}", b.balanced([]int{0, 1}), false)
	lose(0, 2, shard.ReasonHandover)
	lose(0, 3, shard.ReasonHandover)
	check("shard 3 without a holder: held by {0,1}", b.heldBy([]int{0, 1}), false)
	time.Sleep(5 * time.Millisecond) // a gap to measure, not a wait for a condition
	win(1, 3)
	check("balanced over {0,1}", b.balanced([]int{0, 1}), true)
	check("held by {1}", b.heldBy([]int{1}), false)
	acq, rel, gap := b.phase()
	if acq[0] != 0 || acq[1] != 2 || rel[shard.ReasonHandover] != 2 {
		t.Errorf("phase: acquires %v, releases %v; want [0 2 0] and 2 handovers", acq, rel)
	}
	if gap < 5*time.Millisecond || gap > time.Second {
		t.Errorf("longest gap %v, want shard 3's, at least 5ms", gap)
	}
	if _, err := b.await("never", 10*time.Millisecond, func() bool { return b.balanced([]int{2}) }); err == nil {
		t.Error("await of a condition that never holds returned no error")
	}
}
