package scenario

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/bench/internal/env"
)

// TestSettleEvery: settleEvery returns at the second calm window in a
// row, a loud window between two calm ones starting the count again, and
// scales quiet (requests per second) to the window.
func TestSettleEvery(t *testing.T) {
	const w = 2 * time.Millisecond
	quiet := 1000.0                            // a second: 2 requests per window of 2 ms
	steps := []float64{0, 5, 1, 5, 1, 1, 1, 1} // after the first read: loud, calm, loud, calm, calm (settled), ...
	calls, total := 0, 0.0
	counts := func() (env.Counts, error) {
		total += steps[calls]
		calls++
		return env.Counts{Requests: total}, nil
	}
	c, err := settleEvery(counts, quiet, w)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 6 || c.Requests != 13 {
		t.Errorf("settled after %d reads at %v requests, want 6 reads (the 2nd calm window in a row) at 13", calls, c.Requests)
	}
}
