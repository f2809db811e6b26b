package bench

import (
	"fmt"
	"sync"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/report"
	"github.com/leasehold/leasehold/bench/internal/scenario"
	"github.com/leasehold/leasehold/bench/internal/stat"
	"github.com/leasehold/leasehold/lease"
)

// replyBound is leasehold's bound on reply latency at its default options
// for ttl (lease.Options.LatencyBound).
func replyBound(ttl time.Duration) time.Duration {
	return lease.Options{TTL: ttl}.LatencyBound()
}

// runSlowLink runs the slow-link scenario for leasehold and the native
// peer side by side (each on links of its own) on st.
func runSlowLink(cfg config, st *env.Store, r *report.Store, fail func(string, error), logf func(string, ...any)) {
	ttl := ttls[st.Kind]
	p := scenario.SlowLinkPlan{Cycles: cfg.slowCycles, Latency: ttl / 3, Hold: time.Duration(cfg.slowHold * float64(ttl)),
		Tail: time.Duration(cfg.slowTail * float64(ttl)), Settle: cfg.slowSettle}
	if st.Kind == env.Consul {
		p.Cycles = cfg.consulSlowCycles
	}
	libs := []cand.Lib{cand.Leasehold, cand.Native}
	out := make([]report.SlowLink, len(libs))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, lib := range libs {
		wg.Go(func() {
			s, err := scenario.SlowLink(st, lib, p, cand.Opts{TTL: ttl, LockDelay: time.Millisecond})
			if err != nil {
				mu.Lock()
				fail(fmt.Sprintf("slow link %s", lib), err)
				mu.Unlock()
			}
			out[i] = report.SlowLink{Lib: string(lib), Peer: cand.PeerName(lib, st.Kind), LatencyMs: ms(p.Latency),
				HoldSeconds: p.Hold.Seconds(), BoundMs: ms(replyBound(ttl)), Cycles: s.Cycles, Losses: s.Losses,
				LossAfterMs: stat.Millis(s.LossAfter), TakeoverMs: stat.Millis(s.Takeover)}
		})
	}
	wg.Wait()
	r.SlowLink = append(r.SlowLink, out...)
	for _, l := range out {
		logf("slow link %s: lost %d of %d (latency %.0f ms, bound %.0f ms) loss after %v ms", l.Lib, l.Losses, l.Cycles, l.LatencyMs, l.BoundMs, l.LossAfterMs)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
