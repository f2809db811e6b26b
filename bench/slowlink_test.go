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
// peer side by side on st, every cycle at once: each cycle is a run of
// one cycle on an election and links of its own (scenario.SlowLink), so
// the cycles share one wait (Consul's is 37 s) and no cycle starts with
// the leader another cycle left.
func runSlowLink(cfg config, st *env.Store, r *report.Store, fail func(string, error), logf func(string, ...any)) {
	ttl := ttls[st.Kind]
	p := scenario.SlowLinkPlan{Cycles: 1, Latency: ttl / 3, Hold: time.Duration(cfg.slowHold * float64(ttl)),
		Tail: time.Duration(cfg.slowTail * float64(ttl)), Settle: cfg.slowSettle}
	cycles := cfg.slowCycles
	if st.Kind == env.Consul {
		cycles = cfg.consulSlowCycles
	}
	libs := []cand.Lib{cand.Leasehold, cand.Native}
	res := make([][]scenario.SlowLinkResult, len(libs))
	errs := make([][]error, len(libs))
	var wg sync.WaitGroup
	for i, lib := range libs {
		res[i], errs[i] = make([]scenario.SlowLinkResult, cycles), make([]error, cycles)
		for c := range cycles {
			wg.Go(func() {
				res[i][c], errs[i][c] = scenario.SlowLink(st, lib, p, cand.Opts{TTL: ttl, LockDelay: time.Millisecond})
			})
		}
	}
	wg.Wait()
	for i, lib := range libs {
		var s scenario.SlowLinkResult
		for c := range cycles {
			if errs[i][c] != nil {
				fail(fmt.Sprintf("slow link %s cycle %d", lib, c), errs[i][c])
			}
			s.Cycles, s.Losses = s.Cycles+res[i][c].Cycles, s.Losses+res[i][c].Losses
			s.LossAfter, s.Takeover = append(s.LossAfter, res[i][c].LossAfter...), append(s.Takeover, res[i][c].Takeover...)
		}
		l := report.SlowLink{Lib: string(lib), Peer: cand.PeerName(lib, st.Kind), LatencyMs: ms(p.Latency),
			HoldSeconds: p.Hold.Seconds(), BoundMs: ms(replyBound(ttl)), Cycles: s.Cycles, Losses: s.Losses,
			LossAfterMs: stat.Millis(s.LossAfter), TakeoverMs: stat.Millis(s.Takeover)}
		r.SlowLink = append(r.SlowLink, l)
		logf("slow link %s: lost %d of %d (latency %.0f ms, bound %.0f ms) loss after %v ms", l.Lib, l.Losses, l.Cycles, l.LatencyMs, l.BoundMs, l.LossAfterMs)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
