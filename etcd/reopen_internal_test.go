package etcd

import (
	"testing"
	"time"
)

// TestReopenBackoff: a stream that ends before telling anything is opened
// again after a pause doubling from minReopen to maxReopen; one that told
// something, at once.
func TestReopenBackoff(t *testing.T) {
	var d time.Duration
	var got []time.Duration
	for range 8 {
		d = reopenBackoff(d, false)
		got = append(got, d)
	}
	if got[0] != minReopen || got[1] != 2*minReopen || got[7] != maxReopen {
		t.Fatalf("pauses %v: want %v doubling to %v", got, minReopen, maxReopen)
	}
	if d = reopenBackoff(d, true); d != 0 {
		t.Fatalf("after a stream that told something: pause %v, want 0", d)
	}
}
