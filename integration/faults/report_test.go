package faults

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/integration/history"
)

// outcome is one backend's result.
type outcome struct {
	backend string
	ttl     time.Duration
	cfg     history.Config
	ran     map[string]int
	kinds   []fault // the kinds this run rotates through
	report  history.Report
	took    time.Duration
	// timeline is the stretch of the run its picture shows.
	timeline timeline
	pol      policyOutcome
}

// policyOutcome is a run's policy events (policy_test.go).
type policyOutcome struct {
	counts map[string]int             // "kind/outcome"
	yields map[string]int             // handovers the candidates made, by cause
	lat    map[string][]time.Duration // per kind, from the event to the new leader acting
}

// writeReport renders the outcomes as markdown, logs it, and writes it to
// LEASEHOLD_FAULTS_REPORT if set. It draws their timelines, one panel per
// run, next to it (faults.md: faults.png), or without a report into a
// new temporary directory, and logs where.
func writeReport(t *testing.T) {
	results.Lock()
	defer results.Unlock()
	shardResults.Lock()
	defer shardResults.Unlock()
	if len(results.byBackend) == 0 && len(shardResults.runs) == 0 {
		return
	}
	slices.SortStableFunc(results.byBackend, func(a, b outcome) int { return strings.Compare(a.backend, b.backend) })
	slices.SortStableFunc(shardResults.runs, func(a, b shardOutcome) int { return strings.Compare(a.backend, b.backend) })
	path := os.Getenv("LEASEHOLD_FAULTS_REPORT")
	pic, err := picturePath(path)
	md := render(results.byBackend, shardResults.runs, filepath.Base(pic), stamp(time.Now()))
	t.Logf("report:\n%s", md)
	if path != "" {
		if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
			t.Errorf("write report: %v", err)
		}
	}
	if len(results.byBackend) == 0 {
		return // shard groups only: no timeline
	}
	if err == nil {
		err = writeTimeline(pic, timelines(results.byBackend))
	}
	if err != nil {
		t.Errorf("timeline: %v", err)
		return
	}
	t.Logf("timeline of the runs: %s", pic)
}

// stamp says when and at which commit the report was written: the UTC
// date, and git's short HEAD, "+dirty" if the work tree differs from it.
func stamp(now time.Time) string {
	commit := "an unknown commit"
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
		if exec.Command("git", "diff", "--quiet", "HEAD").Run() != nil {
			commit += "+dirty"
		}
	}
	return fmt.Sprintf("on %s at %s", now.UTC().Format("2006-01-02"), commit)
}

// picturePath returns where the timeline goes: next to the report, named
// after it, or faults.png in a new temporary directory.
func picturePath(report string) (string, error) {
	if report != "" {
		return strings.TrimSuffix(report, filepath.Ext(report)) + ".png", nil
	}
	dir, err := os.MkdirTemp("", "leasehold-faults-")
	return filepath.Join(dir, "faults.png"), err
}

// timelines returns the outcomes' timelines, in their order.
func timelines(os []outcome) []timeline {
	tls := make([]timeline, len(os))
	for i, o := range os {
		tls[i] = o.timeline
	}
	return tls
}

// render renders the outcomes (one section and table per run) and the
// shard groups' runs as markdown, stamped with the date and commit
// (stamp), showing the timeline picture pic (a path relative to the
// report). It writes what the runs measured and how, nothing else: no
// history, no notes by hand.
func render(os []outcome, shards []shardOutcome, pic, stamp string) string {
	var b strings.Builder
	b.WriteString("# Fault suite results\n\n")
	fmt.Fprintf(&b, "Written by `make soak` (`integration/faults`) %s.\n", stamp)
	b.WriteString(reportMethod)
	for _, o := range os {
		renderRun(&b, o)
	}
	b.WriteString(renderShards(shards))
	if len(os) > 0 {
		renderTimeline(&b, os, pic)
	}
	return b.String()
}

// reportMethod is the report's method, fault kinds and checks.
const reportMethod = `
## Method

Three candidate processes per store, each on toxiproxy links of its own to the store in containers,
write to a fenced resource (` + "`fencing.Guard`" + `) and as a guarded store write, checking
` + "`Leadership.Valid`" + ` before each. Each cycle aims a fault at the current leader (a store fault at the
cluster) and heals it after 1.5×TTL. On a 3-node cluster ("3 nodes") every kind rotates, one cycle
after another; the default run puts the client-side kinds on a single node. In a soak each cycle
also makes a policy event, after the fault healed (a store fault's: and the store's recovery allowance passed) or while it is active (during): a handover to a
named candidate, a handover request, or a candidate of higher priority joining (Preempt).

## Fault kinds

- Client side, at the leader: *cut* (its links), *latency-low* (0.7× ` + "`lease.Options.LatencyBound`" + `:
  the leader must stay), *latency-high* (1.5× it), *pause* (SIGSTOP), *kill* (SIGKILL; a
  replacement starts at once).
- Store side: *store-kill* (the store's own leader node SIGKILLed), *partition* (one node off the
  cluster network), *isolate* (one node cut from its peers only), *store-restart* (every node
  stopped, then started; data kept).

## Checks

The history checker (` + "`integration/history`" + `) judges the merged histories: (a) tokens increase;
(b) no overlap beyond the drift allowance (a term ends when its elector cancels its context, dated by
the elector's next metrics call or the candidate's own notice, whichever is first); (c) no stale write accepted by a guard; (d) a leader
within TTL + renew interval + the backend's recovery after each heal, plus, after a store fault,
the store's own recovery; (e) no write sent by a leader, paused or not, after a leader with a
higher token began. Below: median / max over the cycles; "stopped acting" is from the fault to
the leader's believed leadership ending, "new leader" until a higher token's leadership began
(—: it did not happen).
`

// violations counts vs, by check: "0 violations", or "8 violations
// (7× d: leader after heal; 1× f: balanced after heal)".
func violations(vs []history.Violation) string {
	if len(vs) == 0 {
		return "0 violations"
	}
	n := map[string]int{}
	for _, v := range vs {
		n[v.Check]++
	}
	checks := slices.Sorted(maps.Keys(n))
	for i, c := range checks {
		checks[i] = fmt.Sprintf("%d× %s", n[c], c)
	}
	return fmt.Sprintf("%d violations (%s)", len(vs), strings.Join(checks, "; "))
}

// renderRun renders one run: its totals, then a row per fault kind and
// policy event.
func renderRun(b *strings.Builder, o outcome) {
	total := 0
	for _, f := range o.kinds {
		total += o.ran[f.name]
	}
	w := o.report.Writes
	fmt.Fprintf(b, "\n## %s\n\nTTL %v; %d fault cycles in %v; %s; writes accepted / rejected: fence %d / %d, store %d / %d.",
		o.backend, o.ttl, total, o.took.Round(time.Second), violations(o.report.Violations), w[history.GuardFence].Accepted,
		w[history.GuardFence].Rejected, w[history.GuardStore].Accepted, w[history.GuardStore].Rejected)
	fmt.Fprintf(b, " Check (d) allowed %v after each heal", o.cfg.Recovery.Round(time.Millisecond))
	if fr := o.cfg.FaultRecovery; fr != nil {
		fmt.Fprintf(b, ", plus %v after store-kill, partition and isolate, %v after store-restart", fr["store-kill"], fr["store-restart"])
	}
	b.WriteString(".\n\n| fault or event | cycles | stopped acting | × TTL (max) | new leader | outcomes |\n|---|---|---|---|---|---|\n")
	stops := stopping(o.report, func(f history.FaultStat) time.Duration { return f.Stop })
	news := stopping(o.report, func(f history.FaultStat) time.Duration { return f.NewLeader })
	for _, name := range reportKinds() {
		cycles, outs := fmt.Sprint(o.ran[name]), ""
		if slices.Contains(policyKinds, name) {
			cycles, outs = policyCells(o.pol, name)
		}
		if cycles == "0" && len(stops[name])+len(news[name]) == 0 {
			continue
		}
		ratio := "—"
		if s := stops[name]; len(s) > 0 {
			ratio = fmt.Sprintf("%.2f", float64(s[len(s)-1])/float64(o.ttl))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", name, cycles, medMax(stops[name]), ratio, medMax(news[name]), outs)
	}
	if len(o.pol.yields) > 0 || len(o.pol.counts) > 0 {
		var ys []string
		for _, cause := range slices.Sorted(maps.Keys(o.pol.yields)) {
			ys = append(ys, fmt.Sprintf("%s %d", cause, o.pol.yields[cause]))
		}
		fmt.Fprintf(b, "| handovers by cause | | | | | %s; settle: preempted %d, overdue %d |\n", strings.Join(ys, ", "),
			o.pol.counts["settle/preempted"], o.pol.counts["settle/preemption-overdue"])
	}
}

// policyCells renders a policy event's cycles (after · during) and its
// outcome counts, with the time from the event to the new leader acting
// (after a fault only); "0" if none ran.
func policyCells(p policyOutcome, kind string) (cycles, outcomes string) {
	c := p.counts
	if c[kind+"/after"]+c[kind+"/during"] == 0 {
		return "0", ""
	}
	var outs []string
	for _, key := range slices.Sorted(maps.Keys(c)) {
		if rest, ok := strings.CutPrefix(key, kind+"/"); ok && rest != "after" && rest != "during" {
			outs = append(outs, fmt.Sprintf("%s %d", rest, c[key]))
		}
	}
	lat := slices.Sorted(slices.Values(p.lat[kind]))
	return fmt.Sprintf("%d · %d", c[kind+"/after"], c[kind+"/during"]),
		fmt.Sprintf("%s; event to new leader acting %s", strings.Join(outs, ", "), medMax(lat))
}

// reportKinds is every fault kind, then the policy events run after a
// fault (in the history as faults of their own), in report order.
func reportKinds() []string {
	var names []string
	for _, f := range allFaultKinds {
		names = append(names, f.name)
	}
	return append(names, policyKinds...)
}

func medMax(ds []time.Duration) string {
	if len(ds) == 0 {
		return "—"
	}
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("%v / %v", r(ds[len(ds)/2]), r(ds[len(ds)-1]))
}

// renderTimeline shows the timeline picture pic with its caption.
func renderTimeline(b *strings.Builder, os []outcome, pic string) {
	var runs []string
	for _, o := range os {
		runs = append(runs, fmt.Sprintf("%s, %s", o.backend, o.timeline.shown))
	}
	fmt.Fprintf(b, "\n## Timeline\n\n![Timeline of the fault runs](%s)\n\n", pic)
	fmt.Fprintf(b, "One panel per run, each a stretch of it: %s. ", strings.Join(runs, "; "))
	b.WriteString(timelineCaption)
}

// timelineCaption explains the timeline picture.
const timelineCaption = `A row per candidate process (thin line: alive); a bar per
leadership, from its Lead to its Unlead or crash (×), labelled with its fencing token, grey while
paused; faults shaded from injection to heal; a violation as a red line labelled with its check.
`
