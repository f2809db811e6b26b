package scenario

import (
	"testing"
	"time"
)

// TestWatchEvents: a loss signal of the leader's term is recorded and
// watching goes on; a stale signal of an older term is not; the next win
// of another term ends the watch with that win.
func TestWatchEvents(t *testing.T) {
	w := slotEvent{slot: 0, term: 2}
	events := make(chan slotEvent, 4)
	lost := time.Now()
	events <- slotEvent{slot: 0, term: 1, lost: true, at: lost.Add(-time.Second)}
	events <- slotEvent{slot: 0, term: 2, lost: true, at: lost}
	events <- slotEvent{slot: 2, term: 5}
	var lostAt time.Time
	nw, changed := watchEvents(events, w, time.Minute, &lostAt)
	if !changed || nw.slot != 2 || nw.term != 5 {
		t.Fatalf("watchEvents = %+v, %v; want slot 2's win of term 5", nw, changed)
	}
	if !lostAt.Equal(lost) {
		t.Fatalf("lostAt = %v, want %v (term 2's signal)", lostAt, lost)
	}
	if nw, changed := watchEvents(events, w, 10*time.Millisecond, nil); changed {
		t.Fatalf("watchEvents with no events = %+v, true; want the leader kept", nw)
	}
}
