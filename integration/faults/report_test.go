package faults

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/history"
)

// outcome is one backend's result.
type outcome struct {
	backend string
	ttl     time.Duration
	cfg     history.Config
	ran     map[string]int
	report  history.Report
	took    time.Duration
}

// writeReport renders the outcomes as markdown, logs it, and writes it to
// LEASEHOLD_FAULTS_REPORT if set.
func writeReport(t *testing.T) {
	results.Lock()
	defer results.Unlock()
	if len(results.byBackend) == 0 {
		return
	}
	md := render(results.byBackend)
	t.Logf("report:\n%s", md)
	if path := os.Getenv("LEASEHOLD_FAULTS_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
			t.Errorf("write report: %v", err)
		}
	}
}

func render(os []outcome) string {
	var b strings.Builder
	b.WriteString("# Fault suite results\n\n")
	b.WriteString("Written by `integration/faults` (`make soak`). Three candidate processes per store, each on its own\n")
	b.WriteString("toxiproxy link to a single-node store in a container; every fault is aimed at the current leader and\n")
	b.WriteString("healed after 1.5×TTL (a kill is healed at once by starting a replacement). The history checker\n")
	b.WriteString("(package `history`) judges the merged histories: (a) tokens increase, (b) no overlap beyond the\n")
	b.WriteString("drift allowance, (c) no stale write accepted by a `fencing.Guard` or a guarded store write, (d) a\n")
	b.WriteString("leader within TTL + renew interval + the store's recovery time after each heal.\n\n")
	b.WriteString("| store | TTL | fault cycles run | violations | writes accepted / rejected (fence · store) | run time |\n|---|---|---|---|---|---|\n")
	for _, o := range os {
		total, kinds := 0, []string{}
		for _, f := range faultKinds {
			total += o.ran[f.name]
			kinds = append(kinds, fmt.Sprintf("%s %d", f.name, o.ran[f.name]))
		}
		w := o.report.Writes
		fmt.Fprintf(&b, "| %s | %v | %d (%s) | %d | %d / %d · %d / %d | %v |\n", o.backend, o.ttl, total,
			strings.Join(kinds, ", "), len(o.report.Violations), w[history.GuardFence].Accepted, w[history.GuardFence].Rejected,
			w[history.GuardStore].Accepted, w[history.GuardStore].Rejected, o.took.Round(time.Second))
	}
	b.WriteString("\nHow long the leader kept acting after the fault began (its believed leadership ended), and how long until\n")
	b.WriteString("a leader with a higher token began; median / max over the cycles (— : did not happen).\n\n")
	b.WriteString("| store | fault | stopped acting after | × TTL (max) | new leader after |\n|---|---|---|---|---|\n")
	for _, o := range os {
		stops := stopping(o.report, func(f history.FaultStat) time.Duration { return f.Stop })
		news := stopping(o.report, func(f history.FaultStat) time.Duration { return f.NewLeader })
		for _, f := range faultKinds {
			if o.ran[f.name] == 0 {
				continue
			}
			ratio := "—"
			if s := stops[f.name]; len(s) > 0 {
				ratio = fmt.Sprintf("%.2f", float64(s[len(s)-1])/float64(o.ttl))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", o.backend, f.name, medMax(stops[f.name]), ratio, medMax(news[f.name]))
		}
	}
	b.WriteString("\nA paused leader \"acts\" until it runs again and sees its deadline passed; its late writes must be\n")
	b.WriteString("rejected (check c), which the violations column covers. Latency below the renewal deadline should\n")
	b.WriteString("leave the leader in place (no new leader).\n")
	return b.String()
}

func medMax(ds []time.Duration) string {
	if len(ds) == 0 {
		return "—"
	}
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("%v / %v", r(ds[len(ds)/2]), r(ds[len(ds)-1]))
}
