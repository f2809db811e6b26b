package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
)

// IdleResult is the store requests per minute of an idle leader and of
// one idle waiting candidate.
type IdleResult struct {
	// LeaderPerMin counts the requests of a leader alone.
	LeaderPerMin float64
	// CandidatePerMin counts the extra requests one waiting candidate adds.
	CandidatePerMin float64
}

// Idle measures a leader of lib alone for window, then the leader and a
// waiting candidate for window, and scales both to a minute.
func Idle(st *env.Store, lib cand.Lib, window time.Duration, o cand.Opts) (IdleResult, error) {
	var r IdleResult
	election := fmt.Sprintf("idle-%d", time.Now().UnixNano())
	leader, err := cand.New(lib, st, election, o)
	if err != nil {
		return r, err
	}
	defer leader.Close()
	ctx, cancel := bg()
	defer cancel()
	if err := leader.Acquire(ctx); err != nil {
		return r, err
	}
	time.Sleep(time.Second)
	alone, err := rate(st, window)
	if err != nil {
		return r, err
	}
	waiter, err := cand.New(lib, st, election, o)
	if err != nil {
		return r, err
	}
	wctx, wcancel := context.WithCancel(ctx)
	defer waiter.Close()
	defer wcancel() // first: Consul's api.Lock.Unlock (Close) waits for its Lock to return
	go func() { _ = waiter.Acquire(wctx) }()
	time.Sleep(time.Second)
	both, err := rate(st, window)
	if err != nil {
		return r, err
	}
	return IdleResult{LeaderPerMin: alone * 60, CandidatePerMin: (both - alone) * 60}, nil
}

// rate returns the store's requests per second over d.
func rate(st *env.Store, d time.Duration) (float64, error) {
	return backgroundRate(st, d)
}
