package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// ShardsMarkdown renders the shards scenario's section of a run that
// included it: the run line, its goals and its tables.
func ShardsMarkdown(r *Results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run: %s mode, %s, started %s, wall time %.0f s; %s.\n", r.Mode, scenariosRan(r), r.Started, r.WallSeconds, r.Machine)
	shardsTable(&b, r)
	return b.String()
}

// shardsGoals evaluates the shards scenario's goals on s: the join moves
// at most 1.1× M/(N+1) shards; no shard waits longer for its new owner
// than one planned handover (this run's p99 at the fewest waiters, if the
// policies scenario ran); on etcd and ZooKeeper (TTL 2 s; Consul's
// shortest is 10 s) a lost member's shards are all owned again within
// TTL + 1 s.
func shardsGoals(s *Store) []goal {
	var gs []goal
	for _, g := range s.Shards {
		joined := g.JoinBalanceSeconds > 0 // 0: the run failed before the join's end
		mv := goal{name: fmt.Sprintf("shards: a join moves ≤ 1.1× M/(N+1) (N=%d, M=%d)", g.N, g.M), store: s.Name}
		if joined {
			mv.measured = fmt.Sprintf("%d / %.0f = %s", g.JoinMoves, g.JoinIdeal(), ratio(float64(g.JoinMoves), g.JoinIdeal()))
			mv.met = float64(g.JoinMoves) <= 1.1*g.JoinIdeal()
		}
		gap := goal{name: "shards: longest unowned on a join ≤ one planned handover (p99)", store: s.Name}
		if joined && len(s.Policies) > 0 {
			p := s.Policies[0].Planned
			gap.measured = fmt.Sprintf("%.1f / %.1f ms (N=%d waiters) = %s", g.JoinMaxUnownedMs, p.P99, s.Policies[0].N, ratio(g.JoinMaxUnownedMs, p.P99))
			gap.met = g.JoinMaxUnownedMs <= p.P99
		}
		gs = append(gs, mv, gap)
		if s.Name != "consul" {
			ttl := ttlSeconds(s.TTL)
			k := goal{name: "shards: a lost member's shards all owned ≤ TTL + 1 s", store: s.Name}
			if g.KillSeconds > 0 {
				k.measured = fmt.Sprintf("%.2f s (TTL %s)", g.KillSeconds, s.TTL)
				k.met = g.KillSeconds <= ttl+1
			}
			gs = append(gs, k)
		}
	}
	return gs
}

// ttlSeconds parses a TTL as the results write it (time.Duration's
// String); 0 if it does not parse.
func ttlSeconds(ttl string) float64 {
	d, err := time.ParseDuration(ttl)
	if err != nil {
		return 0
	}
	return d.Seconds()
}

// scenariosRan names the scenarios of a partial run.
func scenariosRan(r *Results) string {
	if len(r.Scenarios) == 0 {
		return "every scenario"
	}
	return strings.Join(r.Scenarios, ", ") + " only"
}

func shardsTable(b *strings.Builder, r *Results) {
	var gs []goal
	for _, s := range r.Stores {
		gs = append(gs, shardsGoals(s)...)
	}
	b.WriteString("\n#### Goals (sharded leadership), from this run\n\n| goal | store | measured | verdict |\n|---|---|---|---|\n")
	writeGoals(b, gs)
	b.WriteString("\n### Shards (lease/shard: N members, each its own elector, client and session, and M shards)\n\n" +
		"| store | TTL | Settle | N | M | write RTT ms | cold start s | cold start store requests | traced calls | join: moved (to the new member) | / M/(N+1) | balanced s | max unowned ms | / RTT | kill: all owned s | / TTL | balanced s |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, g := range s.Shards {
			if g.ColdSeconds == 0 {
				fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %.2f | failed: see the errors | | | | | | | | | | |\n", s.Name, s.TTL, g.Settle, g.N, g.M, g.RoundTripMs)
				continue
			}
			kill := fmt.Sprintf("%.2f | %s | %.2f", g.KillSeconds, ratio(g.KillSeconds, ttlSeconds(s.TTL)), g.KillBalanceSeconds)
			switch {
			case g.KillSkipped != "":
				kill = "skipped: " + g.KillSkipped + " | | "
			case g.KillSeconds == 0:
				kill = "failed: see the errors | | "
			}
			fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %.2f | %.2f | %.0f | %d | %d (%d) | %s | %.2f | %.1f | %s | %s |\n", s.Name, s.TTL, g.Settle, g.N, g.M,
				g.RoundTripMs, g.ColdSeconds, g.ColdRequests, sumCalls(g.ColdCalls), g.JoinMoves, g.JoinToNew, ratio(float64(g.JoinMoves), g.JoinIdeal()),
				g.JoinBalanceSeconds, g.JoinMaxUnownedMs, ratio(g.JoinMaxUnownedMs, g.RoundTripMs), kill)
		}
	}
	b.WriteString("\n| store | M | steady store req/s: N members | M plain elections on one elector | heap per shard | per plain election | goroutines | cold start's traced calls | join's releases |\n" +
		"|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, g := range s.Shards {
			fmt.Fprintf(b, "| %s | %d | %.1f | %.1f | %.0f B | %.0f B | %d | %s | %s |\n", s.Name, g.M, g.SteadyRequestsPerSec, g.PlainRequestsPerSec,
				g.HeapBytesPerShard, g.PlainHeapBytesPerElect, g.Goroutines, byOp(g.ColdCalls), byOp(g.JoinReleases))
		}
	}
}

// sumCalls returns the calls that went to the store (not notifications).
func sumCalls(c map[string]int) int {
	n := 0
	for op, k := range c {
		if !strings.HasPrefix(op, "notify") {
			n += k
		}
	}
	return n
}

// byOp renders counts by name, in name order.
func byOp(c map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	return strings.Join(parts, ", ")
}
