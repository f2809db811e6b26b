package report

import (
	"fmt"
	"strings"

	"github.com/leasehold/leasehold/bench/internal/stat"
)

func hasHandoff(s *Store) bool  { return len(s.Handoff) > 0 }
func hasCrash(s *Store) bool    { return len(s.Crash) > 0 }
func hasIdle(s *Store) bool     { return len(s.Idle) > 0 }
func hasHerd(s *Store) bool     { return len(s.Herd) > 0 }
func hasSlowLink(s *Store) bool { return len(s.SlowLink) > 0 }

// handoffSection: leasehold's graceful hand-off next to the native peer's
// and valkeyrie's, per store and waiter, with the ratios.
func handoffSection(b *strings.Builder, runs []*Results) []*Results {
	r := pick(runs, "handoff", hasHandoff)
	if r == nil {
		return nil
	}
	from(b, runs, r)
	b.WriteString("Release to successor leading, ms; p50 · p99 · max.\n\n" +
		"| store | waiter | n | leasehold | native peer | p99 ÷ native (90%) | physical p99 | p99 ÷ physical | valkeyrie p99 (n) |\n" +
		"|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, v := range []string{"settled", "fresh"} {
			lh, nat, vk := s.handoff("leasehold", v), s.handoff("native", v), s.handoff("valkeyrie", v)
			if lh.N == 0 {
				continue
			}
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %.2f | %s | %s |\n", s.Name, v, lh.N, lat3(lh.Latency, lh.N),
				lat3(nat.Latency, lh.N), p99Ratio(lh.Latency, nat.Latency), s.Physical.P99, ratio(lh.P99, s.Physical.P99), p99n(vk.Latency))
		}
	}
	return []*Results{r}
}

// crashSection: SIGKILL to successor leading, per library, against the TTL.
func crashSection(b *strings.Builder, runs []*Results) []*Results {
	r := pick(runs, "crash", hasCrash)
	if r == nil {
		return nil
	}
	from(b, runs, r)
	b.WriteString("| store | library | TTL | lock-delay | n | p50 s | max s | max ÷ TTL |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, c := range s.Crash {
			fmt.Fprintf(b, "| %s | %s | %.0f s | %s | %d | %.2f | %.2f | %.2f |\n", s.Name, c.Peer, c.TTLSeconds, dash(c.LockDelay),
				c.N, c.P50/1000, c.Max/1000, c.WorstOverTTL)
		}
	}
	return []*Results{r}
}

// idleSection: requests per minute of an idle leader and waiter, leasehold
// and the native peer.
func idleSection(b *strings.Builder, runs []*Results) []*Results {
	r := pick(runs, "idle", hasIdle)
	if r == nil {
		return nil
	}
	from(b, runs, r)
	b.WriteString("Store requests per minute.\n\n| store | TTL | library | idle leader | one waiting candidate more |\n|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, i := range s.Idle {
			fmt.Fprintf(b, "| %s | %s | %s | %.0f | %.0f |\n", s.Name, s.TTL, i.Peer, i.LeaderPerMin, i.CandidatePerMin)
		}
	}
	return []*Results{r}
}

// herdSection: hand-off among N waiters, by wait mode.
func herdSection(b *strings.Builder, runs []*Results) []*Results {
	r := pick(runs, "herd", hasHerd)
	if r == nil {
		return nil
	}
	from(b, runs, r)
	b.WriteString("Resign to successor leading, ms.")
	for _, s := range r.Stores {
		if len(s.Herd) > 0 {
			fmt.Fprintf(b, " %s: TTL %s, %s.", s.Name, s.Herd[0].TTL, s.Herd[0].Connections)
		}
	}
	b.WriteString("\n\n| store | mode | N | n | p50 | p99 | requests / failover | notifications / failover | background req/s |\n" +
		"|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, h := range s.Herd {
			fmt.Fprintf(b, "| %s | %s | %d | %d | %.2f | %.2f | %s | %.0f | %.0f |\n", s.Name, herdMode(h.Mode), h.N, len(h.Samples),
				h.P50, h.P99, netRequests(h.RequestsPerFailover), h.NotificationsPerFailover, h.BackgroundRequestsPerSec)
		}
	}
	return []*Results{r}
}

// herdMode names a herd mode: the default is the queue (runs before it
// became the default say "queue").
func herdMode(mode string) string {
	if mode == HerdDefault {
		return "queue"
	}
	return mode
}

// slowLinkSection: leadership lost to a slow store→client direction.
func slowLinkSection(b *strings.Builder, runs []*Results) []*Results {
	r := pick(runs, "slowlink", hasSlowLink)
	if r == nil {
		return nil
	}
	from(b, runs, r)
	b.WriteString("| store | library | TTL | latency added | leasehold's bound | held s | cycles | lost | loss after ms |\n" +
		"|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, l := range s.SlowLink {
			fmt.Fprintf(b, "| %s | %s | %s | %.0f ms | %.0f ms | %.1f | %d | %d | %s |\n", s.Name, l.Peer, s.TTL, l.LatencyMs,
				l.BoundMs, l.HoldSeconds, l.Cycles, l.Losses, dash(millis(l.LossAfterMs)))
		}
	}
	return []*Results{r}
}

// lat3 renders p50 · p99 · max in ms, with the sample count if it is not n.
func lat3(l Latency, n int) string {
	if l.N == 0 {
		return "–"
	}
	s := fmt.Sprintf("%.2f · %.2f · %.2f", l.P50, l.P99, l.Max)
	if l.N != n {
		s += fmt.Sprintf(" (n %d)", l.N)
	}
	return s
}

// p99n renders a p99 and its sample count.
func p99n(l Latency) string {
	if l.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f (%d)", l.P99, l.N)
}

// dash renders an empty cell as "–".
func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
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

// p99Ratio renders a's p99 over b's with its 90% bootstrap interval
// (stat.RatioInterval), when both series kept their samples.
func p99Ratio(a, b Latency) string {
	r := ratio(a.P99, b.P99)
	lo, hi := stat.RatioInterval(a.Samples, b.Samples, 0.99, 0.9, 2000)
	if r == "–" || hi == 0 {
		return r
	}
	return fmt.Sprintf("%s (%.2f–%.2f)", r, lo, hi)
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
