package leasetest

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// goroutineSlack is what the goroutine count may grow by from 10 to 1,000
// elections: calls still finishing, the clients' own bookkeeping. One
// goroutine per election would be 1,980 here.
const goroutineSlack = 100

// testGoroutines: an elector that holds M elections and one that waits for
// the same M run no
// goroutine per election: the process's goroutines at M = 1,000 are those
// at M = 10 plus a constant. The test's own Campaign
// calls, one blocked goroutine per waiting election, are not counted.
func (s *suite) testGoroutines(t *testing.T) {
	holder, held := s.counted(t, "holder")
	waiter, waiting := s.counted(t, "waiter")
	base := backendtest.Election(t) + "/"
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var blocked int // the test's Campaign calls of the waiter
	grow := func(from, to int) {
		campaignAll(t, holder, base, from, to)
		for i := from; i < to; i++ {
			blocked++
			go func() { _, _ = waiter.Campaign(ctx, fmt.Sprint(base, i)) }()
		}
		held.await(t, to)
		waiting.await(t, to)
	}
	grow(0, 10)
	at10 := runtime.NumGoroutine() - blocked
	grow(10, 1000)
	// 30 s: on a loaded 2-core machine, calls in flight were seen taking
	// more than 10 s to end (1,639 goroutines then, 184 allowed).
	at1000 := settle(t, at10+goroutineSlack, blocked, 30*time.Second)
	t.Logf("goroutines: %d at 10 elections held and waited for, %d at 1,000", at10, at1000)
}

// campaignAll has e win elections base+from … base+to-1, 32 at a time.
func campaignAll(t *testing.T, e *lease.LeaseElector, base string, from, to int) {
	t.Helper()
	next := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, to-from)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if _, err := e.Campaign(context.Background(), fmt.Sprint(base, i)); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("%s: Campaign: %v", e.Identity(), err)
	}
}

// settle returns the goroutine count less blocked once it is at most want,
// and fails t if it is not within d. The count has no event to wait on:
// the goroutines of calls that have reported back end on their own.
func settle(t *testing.T, want, blocked int, d time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		n := runtime.NumGoroutine() - blocked
		if n <= want {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after %v, want at most %d: the count grows with the elections", n, d, want)
		}
		<-tick.C
	}
}
