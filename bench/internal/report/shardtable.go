package report

import (
	"fmt"
	"strings"
	"time"
)

func hasSharded(s *Store) bool { return len(s.Sharded) > 0 }
func hasShards(s *Store) bool  { return len(s.Shards) > 0 }

// shardedSection: M elections on one elector: time to win all, heap per
// election, goroutines, connections and the store's load.
func shardedSection(b *strings.Builder, runs []*Results) []*Results {
	r := pick(runs, "sharded", hasSharded)
	if r == nil {
		return nil
	}
	from(b, runs, r)
	b.WriteString("| store | M | win all s | heap per election | goroutines (before) | connections (before) | store req/s | notifications/s |\n" +
		"|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, h := range s.Sharded {
			if h.Skipped != "" {
				fmt.Fprintf(b, "| %s | %d | skipped: %s | | | | | |\n", s.Name, h.M, h.Skipped)
				continue
			}
			fmt.Fprintf(b, "| %s | %d | %.3f | %s | %s | %s | %.2f | %.2f |\n", s.Name, h.M, h.AcquireSeconds, heapCell(h.HeapBytesPerElect),
				countBefore(h.Goroutines, h.GoroutinesBefore), countBefore(h.Conns, h.ConnsBefore), h.RequestsPerSec, h.NotificationsPerSec)
		}
	}
	return []*Results{r}
}

// countBefore renders a count and the count before, or "–" if the run
// did not record them.
func countBefore(n, before int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%d (%d)", n, before)
}

// shardsSection: a lease/shard group's cold start, join and kill.
func shardsSection(b *strings.Builder, runs []*Results) []*Results {
	r := pick(runs, "shards", hasShards)
	if r == nil {
		return nil
	}
	from(b, runs, r)
	b.WriteString("| store | TTL | N | M | cold start s | join: moved (ideal) | join: balanced s | join: longest unowned ms (÷ round trip) | kill: all owned s (÷ TTL) | kill: balanced s | heap per shard | store req/s |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, g := range s.Shards {
			if g.ColdSeconds == 0 {
				fmt.Fprintf(b, "| %s | %s | %d | %d | failed | | | | | | | |\n", s.Name, s.TTL, g.N, g.M)
				continue
			}
			fmt.Fprintf(b, "| %s | %s | %d | %d | %.2f | %d (%.0f) | %.2f | %.1f (%s) | %s | %.2f | %s | %.1f |\n", s.Name, s.TTL, g.N, g.M,
				g.ColdSeconds, g.JoinMoves, g.JoinIdeal(), g.JoinBalanceSeconds, g.JoinMaxUnownedMs, ratio(g.JoinMaxUnownedMs, g.RoundTripMs),
				kill(g, s.TTL), g.KillBalanceSeconds, heapCell(g.HeapBytesPerShard), g.SteadyRequestsPerSec)
		}
	}
	return []*Results{r}
}

// kill renders the time until a lost member's shards were all owned again.
func kill(g ShardGroup, ttl string) string {
	switch {
	case g.KillSkipped != "":
		return "skipped: " + g.KillSkipped
	case g.KillSeconds == 0:
		return "failed"
	}
	return fmt.Sprintf("%.2f (%s)", g.KillSeconds, ratio(g.KillSeconds, ttlSeconds(ttl)))
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

// heapCell renders a live heap growth per election or shard in bytes.
// The process's own heap moves by more than one election's share: a run
// whose live heap shrank across the measurement measured nothing, and
// says so rather than show a negative size.
func heapCell(bytes float64) string {
	if bytes < 0 {
		return "– (shrank)"
	}
	return fmt.Sprintf("%.0f B", bytes)
}
