package report

import (
	"fmt"
	"strings"
)

func hasPolicies(s *Store) bool { return len(s.Policies) > 0 }

// plannedSection: a planned handover next to a graceful hand-off and the
// native peer's, with N waiters, and the store's write round trip.
func plannedSection(b *strings.Builder, runs []*Results) []*Results {
	r := pick(runs, "policies", hasPolicies)
	if r == nil {
		return nil
	}
	from(b, runs, r)
	b.WriteString("To the successor leading, ms; p50 · p99 · max. Misses: handovers another waiter won. Store requests per hand-off.\n\n" +
		"| store | N | n | planned | graceful | native peer | planned ÷ graceful p99 | graceful ÷ native p99 | round trip p50 | planned p50 ÷ round trip | misses | requests: planned · graceful · native |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Stores {
		for _, p := range s.Policies {
			fmt.Fprintf(b, "| %s | %d | %d | %s | %s | %s | %s | %s | %.2f | %s | %d | %s · %s · %s |\n", s.Name, p.N, p.Planned.N,
				lat3(p.Planned, p.Planned.N), lat3(p.Graceful, p.Planned.N), lat3(p.Native, p.Planned.N),
				ratio(p.Planned.P99, p.Graceful.P99), ratio(p.Graceful.P99, p.Native.P99), p.RoundTrip.P50,
				ratio(p.Planned.P50, p.RoundTrip.P50), p.Misses, netRequests(p.PlannedReq), netRequests(p.GracefulReq), netRequests(p.NativeReq))
		}
	}
	return []*Results{r}
}
