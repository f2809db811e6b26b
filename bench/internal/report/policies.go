package report

import (
	"fmt"
	"strings"
)

// Issue 13's goals (docs/benchmarks.md): a planned handover's p99 within
// plannedOverGraceful times the same run's graceful hand-off p99, and the
// graceful hand-off's p99 no worse than the store-native peer's.
const plannedOverGraceful = 1.5

// PolicyMarkdown renders issue 13's part of r on its own: its goal rows
// and its table, for the section a run of the policies scenario alone
// writes (BENCH_SCENARIOS=policies).
func PolicyMarkdown(r *Results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run: %s mode, policies scenario only, started %s, wall time %.0f s; %s.\n\n", r.Mode, r.Started, r.WallSeconds, r.Machine)
	b.WriteString("#### Goals (issue 13), ratios from this run\n\n| goal | store | measured | verdict |\n|---|---|---|---|\n")
	var gs []goal
	for _, s := range r.Stores {
		gs = append(gs, policyGoals(s)...)
	}
	writeGoals(&b, gs)
	policyTable(&b, r, "####")
	return b.String()
}

// policyGoals returns issue 13's goals on s, per number of waiters.
func policyGoals(s *Store) []goal {
	var gs []goal
	for _, p := range s.Policies {
		w := fmt.Sprintf("(N=%d waiters)", p.N)
		pl := goal{name: "planned handover p99 ≤ 1.5× graceful hand-off p99 " + w, store: s.Name}
		if p.Planned.N > 0 && p.Graceful.N > 0 {
			pl.measured = fmt.Sprintf("%.2f / %.2f ms = %s", p.Planned.P99, p.Graceful.P99, ratio(p.Planned.P99, p.Graceful.P99))
			pl.met = p.Planned.P99 <= plannedOverGraceful*p.Graceful.P99
		}
		to := goal{name: "planned handover goes to the named candidate " + w, store: s.Name}
		if n := p.Planned.N + p.Misses; n > 0 {
			to.measured, to.met = fmt.Sprintf("%d of %d to another", p.Misses, n), p.Misses == 0
		}
		gr := goal{name: "graceful hand-off p99 ≤ store-native peer p99 " + w, store: s.Name}
		if p.Graceful.N > 0 && p.Native.N > 0 {
			gr.measured = fmt.Sprintf("%.2f / %.2f ms (%s) = %s", p.Graceful.P99, p.Native.P99, p.Peer, ratio(p.Graceful.P99, p.Native.P99))
			gr.met = p.Graceful.P99 <= p.Native.P99
		}
		gs = append(gs, pl, to, gr)
	}
	return gs
}

// policyTable renders issue 13's hand-offs at each number of waiters,
// next to the store's write round trip of the same run; h is the
// heading's level.
func policyTable(b *strings.Builder, r *Results, h string) {
	if !hasPolicies(r) {
		return
	}
	fmt.Fprintf(b, "\n%s Planned handover and graceful hand-off with N waiters (ms)\n\n", h)
	b.WriteString("| store | N | series | n | p50 | p99 | max | p99 / graceful p99 | p99 / native p99 | p50 / round-trip p50 | store requests / hand-off |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, p := range s.Policies {
			rt := p.RoundTrip
			fmt.Fprintf(b, "| %s | %d | store write round trip | %d | %.2f | %.2f | %.2f | | | 1 | |\n", s.Name, p.N, rt.N, rt.P50, rt.P99, rt.Max)
			rows := []struct {
				name string
				l    Latency
				req  float64
			}{{"leasehold planned handover (HandOver to a random waiter)", p.Planned, p.PlannedReq},
				{"leasehold graceful (Resign)", p.Graceful, p.GracefulReq}, {p.Peer + " graceful", p.Native, p.NativeReq}}
			for _, x := range rows {
				fmt.Fprintf(b, "| %s | %d | %s | %d | %.2f | %.2f | %.2f | %s | %s | %s | %s |\n", s.Name, p.N, x.name, x.l.N,
					x.l.P50, x.l.P99, x.l.Max, ratio(x.l.P99, p.Graceful.P99), ratio(x.l.P99, p.Native.P99),
					ratio(x.l.P50, rt.P50), netRequests(x.req))
			}
		}
	}
}

func hasPolicies(r *Results) bool {
	for _, s := range r.Stores {
		if len(s.Policies) > 0 {
			return true
		}
	}
	return false
}
