package turn

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDoExcludes has three goroutines (the stores) take 50 turns each,
// holding each for a moment and pausing between them: no two turns may
// overlap.
func TestDoExcludes(t *testing.T) {
	var l Lock
	var in, most atomic.Int32
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for range 50 {
				_ = l.Do(func() error {
					n := in.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					time.Sleep(200 * time.Microsecond)
					in.Add(-1)
					return nil
				})
				time.Sleep(2 * time.Millisecond) // the pause, outside the turn
			}
		})
	}
	wg.Wait()
	if m := most.Load(); m != 1 {
		t.Errorf("%d turns held at once, want 1", m)
	}
}

// TestNilDo: a nil Lock runs f and returns its error.
func TestNilDo(t *testing.T) {
	var l *Lock
	want := errors.New("x")
	if err := l.Do(func() error { return want }); err != want {
		t.Errorf("Do = %v, want %v", err, want)
	}
}
