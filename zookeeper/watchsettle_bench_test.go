package zookeeper

import (
	"fmt"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// BenchmarkWatchSetSettle measures how long M requests made at once on
// one WatchSet take until every watch is set, against the Store's Get (a
// sync and a read, one round trip) timed in the same run:
// settle/Get is that time over a Get's. Run it with
//
//	go test -run '^$' -bench WatchSetSettle -benchtime 20x ./zookeeper/
func BenchmarkWatchSetSettle(b *testing.B) {
	f := newWatchFixture(b)
	get := timeGets(b, f, 200)
	for _, m := range []int{1, 32, 1000} {
		b.Run(fmt.Sprintf("M=%d", m), func(b *testing.B) {
			watching := hookWatching(b)
			var sum time.Duration
			for b.Loop() {
				prefix := uniqueName("settle-")
				w := f.s.Watch(func(backends.Change) {})
				start := time.Now()
				for i := range m {
					w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: backends.Record{Election: fmt.Sprintf("%s-%d", prefix, i)}})
				}
				for range m {
					awaitAny(b, watching)
				}
				sum += time.Since(start)
				_ = w.Close()
			}
			settle := sum / time.Duration(b.N)
			b.ReportMetric(float64(settle.Microseconds())/1000, "ms/settle")
			b.ReportMetric(float64(settle)/float64(get), "settle/Get")
		})
	}
}

// timeGets returns the mean time of n Gets of one election on f's Store.
func timeGets(b *testing.B, f *watchFixture, n int) time.Duration {
	b.Helper()
	start := time.Now()
	for range n {
		if _, err := f.s.Get(f.ctx, "settle-get"); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start) / time.Duration(n)
}
