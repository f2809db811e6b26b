// Package scenario runs the benchmark's measurements against one store:
// the physical write-to-notify reference, graceful hand-off, crash
// failover, herd, sharded leadership and idle cost.
package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/bench/internal/env"
)

// Pace is how long a writer idles before each write, as a leader does
// before it resigns. A scenario idles without its store's turn (see
// turn.Lock), so the idle may run longer while another store measures.
const Pace = 150 * time.Millisecond

// measure runs f, a sample's measured section, in st's turn (see
// turn.Lock) and returns how long f took.
func measure(st *env.Store, f func() error) (time.Duration, error) {
	var d time.Duration
	err := st.Turn.Do(func() error {
		t0 := time.Now()
		err := f()
		d = time.Since(t0)
		return err
	})
	return d, err
}

// waitFor bounds every single wait for a leadership or a notification.
const waitFor = 90 * time.Second

// recv waits for one value from ch for at most waitFor.
func recv[T any](ch <-chan T, what string) (T, error) {
	select {
	case v := <-ch:
		return v, nil
	case <-time.After(waitFor):
		var zero T
		return zero, fmt.Errorf("%s: no answer within %v", what, waitFor)
	}
}

// bg returns a context bounded by waitFor.
func bg() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), waitFor)
}
