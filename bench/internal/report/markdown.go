package report

import (
	"fmt"
	"strings"
)

// Markdown renders r as the tables of results.md: goals first, then every
// scenario the run ran.
func Markdown(r *Results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run: %s mode, started %s, wall time %.0f s; %s.\n\n", r.Mode, r.Started, r.WallSeconds, r.Machine)
	b.WriteString(Goals(r))
	tables := []struct {
		scenario string
		write    func(*strings.Builder, *Results)
	}{{"handoff", handoffTable}, {"crash", crashTable}, {"herd", herdTable}, {"sharded", shardedTable}, {"shards", shardsTable},
		{"idle", idleTable}, {"slowlink", slowLinkTable}}
	for _, t := range tables {
		if r.Ran(t.scenario) { // a partial run's report has the tables it filled
			t.write(&b, r)
		}
	}
	policyTable(&b, r, "###")
	for _, s := range r.Stores {
		for _, e := range s.Errors {
			fmt.Fprintf(&b, "- **error** %s: %s\n", s.Name, e)
		}
	}
	return b.String()
}

func handoffTable(b *strings.Builder, r *Results) {
	b.WriteString("\n### Graceful hand-off (ms)\n\n| store | library | waiter | n | p50 | p99 | max | p99 / physical p99 | p99 / native p99 |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		if s.Physical.N > 0 {
			fmt.Fprintf(b, "| %s | physical write→notify (paced %s) | | %d | %.2f | %.2f | %.2f | 1 | |\n", s.Name, "150 ms", s.Physical.N, s.Physical.P50, s.Physical.P99, s.Physical.Max)
		}
		for _, h := range s.Handoff {
			nat := s.handoff("native", h.Variant)
			fmt.Fprintf(b, "| %s | %s | %s | %d | %.2f | %.2f | %.2f | %s | %s |\n", s.Name, h.Peer, h.Variant, h.N, h.P50, h.P99, h.Max,
				ratio(h.P99, s.Physical.P99), ratio(h.P99, nat.P99))
		}
	}
}

func crashTable(b *strings.Builder, r *Results) {
	b.WriteString("\n### Crash failover (leader process SIGKILLed)\n\n| store | library | TTL | lock-delay | n | p50 s | max s | max / TTL |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, c := range s.Crash {
			fmt.Fprintf(b, "| %s | %s | %.0f s | %s | %d | %.2f | %.2f | %.2f |\n", s.Name, c.Peer, c.TTLSeconds, c.LockDelay, c.N, c.P50/1000, c.Max/1000, c.WorstOverTTL)
		}
	}
}

func herdTable(b *strings.Builder, r *Results) {
	b.WriteString("\n### Herd (leasehold, N waiting candidates, one elector and session each)\n\n| store | mode | N | TTL | electors reach the store by | n | p50 ms | p99 ms | max ms | requests / failover | notifications / failover | background req/s |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, h := range s.Herd {
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %d | %.2f | %.2f | %.2f | %s | %.0f | %.0f |\n", s.Name, h.Mode, h.N, h.TTL, h.Connections, len(h.Samples), h.P50, h.P99, h.Max,
				netRequests(h.RequestsPerFailover), h.NotificationsPerFailover, h.BackgroundRequestsPerSec)
		}
	}
}

func shardedTable(b *strings.Builder, r *Results) {
	b.WriteString("\n### Sharded (leasehold, M elections on one elector and session)\n\n" +
		"| store | M | acquire all s | / etcd's | store req/s held | notifications/s | Go heap per election (after GC) | goroutines (before the elector) | connections to the store (before) |\n" +
		"|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, h := range s.Sharded {
			if h.Skipped != "" {
				fmt.Fprintf(b, "| %s | %d | skipped: %s | | | | | | |\n", s.Name, h.M, h.Skipped)
				continue
			}
			fmt.Fprintf(b, "| %s | %d | %.3f | %s | %.2f | %.2f | %.0f B | %d (%d) | %d (%d) |\n", s.Name, h.M, h.AcquireSeconds,
				ratio(h.AcquireSeconds, r.sharded("etcd", h.M).AcquireSeconds), h.RequestsPerSec, h.NotificationsPerSec,
				h.HeapBytesPerElect, h.Goroutines, h.GoroutinesBefore, h.Conns, h.ConnsBefore)
		}
	}
}

func idleTable(b *strings.Builder, r *Results) {
	b.WriteString("\n### Idle cost (store requests per minute)\n\n| store | library | TTL | idle leader | idle waiting candidate |\n|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, i := range s.Idle {
			fmt.Fprintf(b, "| %s | %s | %s | %.0f | %.0f |\n", s.Name, i.Peer, s.TTL, i.LeaderPerMin, i.CandidatePerMin)
		}
	}
}

func slowLinkTable(b *strings.Builder, r *Results) {
	b.WriteString("\n### Slow link (three candidates, each on its own link; the leader's store→client direction delayed)\n\n" +
		"| store | library | TTL | latency | held | leasehold's bound | cycles | lost | loss after (ms) | successor after the loser's own signal (ms) |\n" +
		"|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, l := range s.SlowLink {
			fmt.Fprintf(b, "| %s | %s | %s | %.0f ms | %.1f s | %.0f ms | %d | %d | %s | %s |\n", s.Name, l.Peer, s.TTL, l.LatencyMs,
				l.HoldSeconds, l.BoundMs, l.Cycles, l.Losses, millis(l.LossAfterMs), millis(l.TakeoverMs))
		}
	}
}

// millis renders a list of milliseconds.
func millis(v []float64) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%.0f", x)
	}
	return b.String()
}

// handoff returns the series of lib and variant, or an empty one.
func (s *Store) handoff(lib, variant string) Handoff {
	for _, h := range s.Handoff {
		if h.Lib == lib && h.Variant == variant {
			return h
		}
	}
	return Handoff{}
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// netRequests renders requests per failover net of the background rate;
// a negative value means the failover's own requests are lost in the
// noise of the background (thousands of sessions' keep-alives).
func netRequests(v float64) string {
	if v < 0 {
		return fmt.Sprintf("< noise (%.0f)", v)
	}
	return fmt.Sprintf("%.0f", v)
}
