package report

import (
	"fmt"
	"strings"
)

// compareSection: leasehold's figure over the native peer's, per store,
// each from the newest run that measured it.
func compareSection(b *strings.Builder, runs []*Results) []*Results {
	ho, cr := pick(runs, "handoff", hasHandoff), pick(runs, "crash", hasCrash)
	id, po := pick(runs, "idle", hasIdle), pick(runs, "policies", hasPolicies)
	var used []*Results
	for _, r := range []*Results{ho, cr, id, po} {
		if r != nil {
			used = append(used, r)
		}
	}
	if len(used) == 0 {
		return nil
	}
	b.WriteString("leasehold's figure ÷ the native peer's, same run: below 1, leasehold is faster or cheaper.\n\n" +
		"| store | hand-off p99: settled · fresh | crash failover max | idle leader · waiter requests | hand-off p99 with N waiters |\n" +
		"|---|---|---|---|---|\n")
	for _, name := range storeNames(used) {
		var cells [4]string
		if s := store(ho, name); s != nil {
			cells[0] = ratio(s.handoff("leasehold", "settled").P99, s.handoff("native", "settled").P99) + " · " +
				ratio(s.handoff("leasehold", "fresh").P99, s.handoff("native", "fresh").P99)
		}
		if s := store(cr, name); s != nil {
			cells[1] = ratio(crashMax(s, "leasehold"), crashMax(s, "native"))
		}
		if s := store(id, name); s != nil {
			lh, nat := idle(s, "leasehold"), idle(s, "native")
			cells[2] = ratio(lh.LeaderPerMin, nat.LeaderPerMin) + " · " + ratio(lh.CandidatePerMin, nat.CandidatePerMin)
		}
		if s := store(po, name); s != nil {
			var ws []string
			for _, p := range s.Policies {
				ws = append(ws, fmt.Sprintf("N=%d: %s", p.N, ratio(p.Graceful.P99, p.Native.P99)))
			}
			cells[3] = strings.Join(ws, ", ")
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", name, dash(cells[0]), dash(cells[1]), dash(cells[2]), dash(cells[3]))
	}
	return used
}

// storeNames lists the stores of runs, in first-seen order.
func storeNames(runs []*Results) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.Stores {
			if !seen[s.Name] {
				seen[s.Name] = true
				names = append(names, s.Name)
			}
		}
	}
	return names
}

// store returns r's store called name, or nil (also for a nil r).
func store(r *Results, name string) *Store {
	if r == nil {
		return nil
	}
	for _, s := range r.Stores {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// crashMax is the worst crash failover of lib on s at the shortest
// lock-delay measured (Consul's default lock-delay is a series of its own).
func crashMax(s *Store, lib string) float64 {
	for _, c := range s.Crash {
		if c.Lib == lib && !strings.HasPrefix(c.LockDelay, "default") {
			return c.Max
		}
	}
	return 0
}

// idle returns lib's idle cost on s, or an empty one.
func idle(s *Store, lib string) Idle {
	for _, i := range s.Idle {
		if i.Lib == lib {
			return i
		}
	}
	return Idle{}
}
