package scenario

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
)

// Variant says when the waiter began waiting before the release.
type Variant string

// The hand-off variants.
const (
	// Settled: the waiter began waiting Pace before the release.
	Settled Variant = "settled"
	// Fresh: the waiter began waiting 0–100 ms before the release.
	Fresh Variant = "fresh"
)

// Handoff measures n graceful hand-offs between two candidates of lib on
// st: the leader idles Pace after it won, then releases; the latency runs
// from the call to Release to the moment the waiter's Acquire returns.
// The two candidates swap roles after each hand-off.
func Handoff(st *env.Store, lib cand.Lib, v Variant, n int, o cand.Opts) ([]time.Duration, error) {
	election := fmt.Sprintf("handoff-%s-%d", v, time.Now().UnixNano())
	var cs [2]cand.Candidate
	for i := range cs {
		c, err := cand.New(lib, st, election, o)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		cs[i] = c
	}
	ctx, cancel := bg()
	err := cs[0].Acquire(ctx)
	cancel()
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, 0, n)
	for i := range n {
		d, err := handoffOnce(cs[i%2], cs[(i+1)%2], v)
		if err != nil {
			return out, fmt.Errorf("hand-off %d: %w", i, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// handoffOnce hands leadership from leader to waiter once.
func handoffOnce(leader, waiter cand.Candidate, v Variant) (time.Duration, error) {
	join := Pace
	if v == Fresh {
		join = time.Duration(rand.Int64N(int64(100 * time.Millisecond)))
		time.Sleep(Pace - join)
	}
	won := make(chan error, 1)
	at := make(chan time.Time, 1)
	go func() {
		ctx, cancel := bg()
		defer cancel()
		err := waiter.Acquire(ctx)
		at <- time.Now()
		won <- err
	}()
	time.Sleep(join)
	ctx, cancel := bg()
	defer cancel()
	t0 := time.Now()
	if err := leader.Release(ctx); err != nil {
		return 0, fmt.Errorf("release: %w", err)
	}
	t1, err := recv(at, "successor")
	if err != nil {
		return 0, err
	}
	if err := <-won; err != nil {
		return 0, fmt.Errorf("acquire: %w", err)
	}
	return t1.Sub(t0), nil
}
