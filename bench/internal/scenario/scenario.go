// Package scenario runs the benchmark's measurements against one store:
// the physical write-to-notify reference, graceful hand-off, crash
// failover, herd, sharded leadership and idle cost.
package scenario

import (
	"context"
	"fmt"
	"time"
)

// Pace is how long a writer idles before each write, as a leader does
// before it resigns.
const Pace = 150 * time.Millisecond

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
