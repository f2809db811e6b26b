package scenario

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/lease"
)

// ShardedResult is the outcome of one sharded run.
type ShardedResult struct {
	// Acquire is the time to acquire every election.
	Acquire time.Duration
	// RequestsPerSec and NotificationsPerSec are the store's steady-state
	// rates while all elections are held.
	RequestsPerSec, NotificationsPerSec float64
	// HeapPerElection is the growth of live heap objects (after GC) per
	// held election, in bytes, beyond the elector and its session.
	HeapPerElection float64
	// Goroutines is the process's goroutine count while all are held, and
	// GoroutinesBefore the count before the elector was made.
	Goroutines, GoroutinesBefore int
	// Conns is the process's open TCP connections to the store while all
	// are held (env.Store.Conns), and ConnsBefore before the elector.
	Conns, ConnsBefore int
}

// HeapProfileDir, if set, is where Sharded writes a heap profile of the
// process (heap-<store>-<m>.pprof, every allocation sampled from its start) right
// after it measures the heap with all m elections held: where the bytes
// per election go. Sampling every allocation slows the run.
var HeapProfileDir string

// Sharded campaigns for m elections on one elector (one session) and
// measures the time to win them all, the store's request rate over window
// while they are held, and the heap per election.
func Sharded(st *env.Store, m int, window time.Duration, o cand.Opts) (ShardedResult, error) {
	st.CloseIdle() // no connections left over from the scenarios before
	if HeapProfileDir != "" {
		defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
		runtime.MemProfileRate = 1
	}
	r := ShardedResult{GoroutinesBefore: runtime.NumGoroutine()}
	var err error
	if r.ConnsBefore, err = st.Conns(); err != nil {
		return r, err
	}
	es, closeAll, err := cand.Electors(st, 1, 1, o)
	if err != nil {
		return r, err
	}
	defer closeAll()
	ctx, cancel := bg()
	_, err = es[0].AwaitSession(ctx)
	cancel()
	if err != nil {
		return r, err
	}
	spareGoroutines(2*m + 1000)
	h0 := liveHeap() // the elector and its session, before any election
	prefix := fmt.Sprintf("shard-%d-%d/", m, time.Now().UnixNano())
	ls, d, err := acquireAll(es[0], prefix, m)
	if err != nil {
		return r, err
	}
	r.Acquire = d
	c0, err := settle(st, 20+float64(m)/500)
	if err != nil {
		return r, err
	}
	r.HeapPerElection = (liveHeap() - h0) / float64(m)
	if err := writeHeapProfile(st.Kind, m); err != nil {
		return r, err
	}
	r.Goroutines = runtime.NumGoroutine()
	if r.Conns, err = st.Conns(); err != nil {
		return r, err
	}
	time.Sleep(window)
	c1, err := st.Counts(context.Background())
	if err != nil {
		return r, err
	}
	dc := c1.Sub(c0)
	r.RequestsPerSec, r.NotificationsPerSec = dc.Requests/window.Seconds(), dc.Notifications/window.Seconds()
	for _, l := range ls {
		if l.Err() != nil {
			return r, fmt.Errorf("a sharded leadership ended: %w", l.Err())
		}
	}
	return r, nil
}

// settle waits until the store is quiet: fewer than quiet requests in
// each of two seconds in a row. After an acquisition every holder opens a
// watch on its key and reads it once, and after a thousand campaigns in
// queue mode every waiter takes its place; at these sizes that tail
// outlasts a fixed pause. settle gives up after a minute and measures
// anyway. It returns the counts at the end.
func settle(st *env.Store, quiet float64) (env.Counts, error) {
	return settleOn(func() (env.Counts, error) { return st.Counts(context.Background()) }, quiet)
}

// settleOn is settle on the counters that counts reads.
func settleOn(counts func() (env.Counts, error), quiet float64) (env.Counts, error) {
	return settleEvery(counts, quiet, time.Second)
}

// settleEvery is settleOn over windows of w: fewer than quiet requests
// per second in each of two windows of w in a row, or a minute gone.
func settleEvery(counts func() (env.Counts, error), quiet float64, w time.Duration) (env.Counts, error) {
	prev, err := counts()
	if err != nil {
		return prev, err
	}
	calm := 0
	for start := time.Now(); time.Since(start) < time.Minute; {
		time.Sleep(w)
		cur, err := counts()
		if err != nil {
			return cur, err
		}
		if cur.Sub(prev).Requests < quiet*w.Seconds() {
			if calm++; calm == 2 {
				return cur, nil
			}
		} else {
			calm = 0
		}
		prev = cur
	}
	return prev, nil
}

// acquireAll campaigns for m elections at once and waits for all.
func acquireAll(e *lease.LeaseElector, prefix string, m int) ([]*lease.Leadership, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ls := make([]*lease.Leadership, m)
	errs := make([]error, m)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range m {
		wg.Go(func() { ls[i], errs[i] = e.Campaign(ctx, fmt.Sprintf("%s%d", prefix, i)) })
	}
	wg.Wait()
	d := time.Since(t0)
	for _, err := range errs {
		if err != nil {
			return nil, d, err
		}
	}
	return ls, d, nil
}

// spareGoroutines runs n goroutines at once and lets them end, so that
// the runtime holds n goroutine descriptors for reuse before the heap is
// first measured. The runtime never frees a goroutine's descriptor (about
// 480 bytes, a live heap object): without this, the m goroutines that
// acquireAll starts, and those the elector runs its calls on while
// thousands are in flight, would count as heap per held election, and by
// how many happened to be alive at once, which varies from run to run
// (issue 14's figure moved by a kilobyte between runs of the same code).
// Acquiring reuses these; a peak above n still counts.
func spareGoroutines(n int) {
	var started, done sync.WaitGroup
	release := make(chan struct{})
	started.Add(n)
	for range n {
		done.Go(func() {
			started.Done()
			<-release
		})
	}
	started.Wait()
	close(release)
	done.Wait()
}

// liveHeap returns the bytes of live heap objects after a full GC.
func liveHeap() float64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64())
}

// writeHeapProfile writes the heap profile of Sharded on store kind with
// m elections into HeapProfileDir, if set.
func writeHeapProfile(kind env.Kind, m int) error {
	if HeapProfileDir == "" {
		return nil
	}
	f, err := os.Create(filepath.Join(HeapProfileDir, fmt.Sprintf("heap-%s-%d.pprof", kind, m)))
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
