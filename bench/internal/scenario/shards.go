package scenario

import (
	"fmt"
	"runtime"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/stat"
	"github.com/leasehold/leasehold/bench/internal/trace"
)

// ShardsResult is the outcome of one shards run (see Shards).
type ShardsResult struct {
	// RoundTrip is the median of the store's write round trip, measured
	// before the group starts.
	RoundTrip time.Duration
	// Cold is the time from the N members' Joins, called at once, until
	// the group is balanced (every shard held by one member, ⌊M/N⌋ or
	// ⌈M/N⌉ apiece); ColdRequests the store's requests meanwhile (its
	// counters, as the other scenarios count), and ColdCalls the
	// members' store calls meanwhile, traced, by operation.
	Cold         time.Duration
	ColdRequests float64
	ColdCalls    trace.Counts
	// SteadyRequestsPerSec and SteadyNotificationsPerSec are the store's
	// rates over the window while the N members hold the M shards, once
	// the store is quiet.
	SteadyRequestsPerSec, SteadyNotificationsPerSec float64
	// HeapPerShard is the growth of live heap objects (after GC) per
	// shard, from before the Joins (the N electors with their sessions)
	// to the steady state: every member's share, all in this process.
	HeapPerShard float64
	// Goroutines is the process's goroutine count in the steady state.
	Goroutines int
	// JoinMoves is the shards acquired from one more member's Join until
	// the group is balanced again, JoinToNew those the new member
	// acquired, JoinReleases the releases meanwhile by reason,
	// JoinBalance that time, and JoinMaxUnowned the longest a shard went
	// from its holder's release to its next holder's win.
	JoinMoves      int
	JoinToNew      int
	JoinReleases   map[string]int
	JoinBalance    time.Duration
	JoinMaxUnowned time.Duration
	// Kill is the time from severing member 0's link (its client's
	// connections and the way back to the store, without a Leave: its
	// session expires on the store) until every shard is held by another
	// member; KillBalance until those are balanced. Zero when not run.
	Kill, KillBalance time.Duration
}

// Shards runs a group of n members and m shards (package lease/shard)
// on st, each member an elector of TTL o.TTL with its own client and
// session and the group's shard.Options.Settle settle (0: its default,
// the TTL): a cold start of n members at once, the steady state over
// window, one more member's join, and, if kill, the loss of member 0.
func Shards(st *env.Store, n, m int, window, settle time.Duration, kill bool, o cand.Opts) (ShardsResult, error) {
	var r ShardsResult
	st.CloseIdle()
	rtt, err := roundTrips(st, 10)
	if err != nil {
		return r, err
	}
	r.RoundTrip = rtt
	w, err := newShardGroup(st, n+1, m, settle, o)
	if err != nil {
		return r, err
	}
	defer w.close()
	spareGoroutines(2*m + 1000)
	h0 := liveHeap()
	if err := w.coldStart(n, &r); err != nil {
		return r, err
	}
	if err := w.steady(n, window, h0, &r); err != nil {
		return r, err
	}
	if err := w.joinOne(n, &r); err != nil {
		return r, err
	}
	if !kill {
		return r, nil
	}
	return r, w.kill(n, o.TTL, &r)
}

// roundTrips returns the median of k write round trips on st.
func roundTrips(st *env.Store, k int) (time.Duration, error) {
	p, err := newProber(st)
	if err != nil {
		return 0, err
	}
	defer p.close()
	var ds []time.Duration
	for range k {
		d, err := p.probe()
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	return time.Duration(stat.Summarize(ds).P50 * float64(time.Millisecond)), nil
}

// members returns the indices from..to-1.
func members(from, to int) []int {
	var ms []int
	for i := from; i < to; i++ {
		ms = append(ms, i)
	}
	return ms
}

// coldStart joins members 0..n-1 at once and waits for balance.
func (w *shardGroup) coldStart(n int, r *ShardsResult) error {
	c0, err := w.counts()
	if err != nil {
		return err
	}
	k0 := w.tally.Snapshot()
	t0 := time.Now()
	if err := w.joinAll(members(0, n)); err != nil {
		return err
	}
	ms := members(0, n)
	_, err = w.book.await("cold start: balance", 5*time.Minute, func() bool { return w.book.balanced(ms) })
	r.ColdCalls = w.tally.Snapshot().Sub(k0)
	if err != nil {
		return fmt.Errorf("%w; traced calls %v", err, r.ColdCalls)
	}
	r.Cold = time.Since(t0)
	c1, err := w.counts()
	r.ColdRequests = c1.Sub(c0).Requests
	return err
}

// steady measures the store's rates over window once it is quiet, and
// the heap per shard against h0.
func (w *shardGroup) steady(n int, window time.Duration, h0 float64, r *ShardsResult) error {
	c0, err := settleOn(w.counts, 20+2*float64(n)+float64(w.m)/500)
	if err != nil {
		return err
	}
	r.HeapPerShard = (liveHeap() - h0) / float64(w.m)
	r.Goroutines = runtime.NumGoroutine()
	time.Sleep(window)
	c1, err := w.counts()
	dc := c1.Sub(c0)
	r.SteadyRequestsPerSec, r.SteadyNotificationsPerSec = dc.Requests/window.Seconds(), dc.Notifications/window.Seconds()
	if !w.balancedNow(members(0, n)) {
		return fmt.Errorf("steady state: the group of %d is no longer balanced", n)
	}
	return err
}

// balancedNow reports whether members ms hold the shards in balance.
func (w *shardGroup) balancedNow(ms []int) bool {
	w.book.mu.Lock()
	defer w.book.mu.Unlock()
	return w.book.balanced(ms)
}

// joinOne joins member n to the balanced group of members 0..n-1 and
// waits for balance among the n+1.
func (w *shardGroup) joinOne(n int, r *ShardsResult) error {
	w.book.mark()
	t0 := time.Now()
	if err := w.join(n); err != nil {
		return err
	}
	ms := members(0, n+1)
	if _, err := w.book.await("join: balance", 3*time.Minute, func() bool { return w.book.balanced(ms) }); err != nil {
		return err
	}
	r.JoinBalance = time.Since(t0)
	acq, rel, gap := w.book.phase()
	for _, k := range acq {
		r.JoinMoves += k
	}
	r.JoinToNew, r.JoinReleases, r.JoinMaxUnowned = acq[n], rel, gap
	return nil
}

// kill severs member 0's link once the store is quiet and waits until
// the others hold every shard, then until they are balanced.
func (w *shardGroup) kill(n int, ttl time.Duration, r *ShardsResult) error {
	if _, err := settleOn(w.counts, 20+2*float64(n)+float64(w.m)/500); err != nil {
		return err
	}
	t0 := time.Now()
	w.ms[0].link.Close()
	rest := members(1, n+1)
	limit := 3*ttl + time.Minute
	if _, err := w.book.await("kill: the others hold every shard", limit, func() bool { return w.book.heldBy(rest) }); err != nil {
		return err
	}
	r.Kill = time.Since(t0)
	if _, err := w.book.await("kill: balance", limit, func() bool { return w.book.balanced(rest) }); err != nil {
		return err
	}
	r.KillBalance = time.Since(t0)
	return nil
}
