package zookeeper

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// footprint is what each waiting election costs a process.
type footprint struct {
	bytes      float64 // Go heap and goroutine stacks, per election
	goroutines float64 // per election
}

// measureWaiting returns the footprint of m elections waiting for their
// (absent) nodes on one WatchSet of the Store of f. It counts once every
// watch is set, and closes the set before it returns.
func measureWaiting(tb testing.TB, f *watchFixture, m int) footprint {
	watching := hookWatching(tb)
	prefix := uniqueName("cost-")
	before := usage()
	w := f.s.Watch(func(backends.Change) {})
	defer func() { _ = w.Close() }()
	for i := range m {
		w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: backends.Record{Election: fmt.Sprintf("%s-%d", prefix, i)}})
	}
	for range m {
		awaitAny(tb, watching)
	}
	after := usage()
	return footprint{bytes: float64(after.bytes-before.bytes) / float64(m),
		goroutines: float64(after.goroutines-before.goroutines) / float64(m)}
}

type usageNow struct{ bytes, goroutines int64 }

// usage returns the live Go heap plus goroutine stacks, after a GC, and
// the goroutines.
func usage() usageNow {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return usageNow{bytes: int64(ms.HeapAlloc + ms.StackInuse), goroutines: int64(runtime.NumGoroutine())}
}

// TestWatchSetFootprint: 2,000 elections waiting on one WatchSet cost at
// most 4 KiB of heap each (issue 14's goal) and no goroutine each.
func TestWatchSetFootprint(t *testing.T) {
	f := newWatchFixture(t)
	const m = 2000
	got := measureWaiting(t, f, m)
	t.Logf("WatchSet: %.0f B and %.4f goroutines per waiting election (M=%d)", got.bytes, got.goroutines, m)
	if got.bytes > 4096 || got.goroutines*m > maxReaders+1 {
		t.Fatalf("WatchSet footprint %+v per election, want at most 4096 B and %d goroutines in all", got, maxReaders+1)
	}
}

// BenchmarkWaitingCost reports what M elections waiting for their nodes
// on one WatchSet cost the Store's process, as etcd's benchmark of that
// name does: Go heap and goroutine stacks in B/election, and goroutines
// per election, measured after a GC once every watch is set. The servers
// run in their own processes. Run with -benchtime=1x: each iteration
// sets up M watches.
func BenchmarkWaitingCost(b *testing.B) {
	f := newWatchFixture(b)
	for _, m := range []int{1, 100, 10_000} {
		b.Run(fmt.Sprintf("WatchSet/M=%d", m), func(b *testing.B) {
			var sum footprint
			for b.Loop() {
				got := measureWaiting(b, f, m)
				sum.bytes, sum.goroutines = sum.bytes+got.bytes, sum.goroutines+got.goroutines
			}
			b.ReportMetric(sum.bytes/float64(b.N), "B/election")
			b.ReportMetric(sum.goroutines/float64(b.N), "goroutines/election")
		})
	}
}
