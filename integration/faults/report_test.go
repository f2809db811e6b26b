package faults

import (
	"fmt"
	"maps"
	"os"
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
	md := "# Fault suite results\n\n"
	if len(results.byBackend) > 0 {
		md = render(results.byBackend, filepath.Base(pic))
	}
	md += renderShards(shardResults.runs)
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

// render renders the outcomes as markdown, showing the timeline picture
// pic (a path relative to the report).
func render(os []outcome, pic string) string {
	var b strings.Builder
	b.WriteString("# Fault suite results\n\n")
	b.WriteString("Written by `integration/faults` (`make soak`). Three candidate processes per store, each on its own\n")
	b.WriteString("toxiproxy links to the store in containers. Client-side faults (cut, latency, pause, kill) are aimed\n")
	b.WriteString("at the current leader and healed after 1.5×TTL (a kill is healed at once by starting a replacement).\n")
	b.WriteString("Store faults: the store's leader node killed (store-kill), one node cut from the cluster network\n")
	b.WriteString("(partition), one node cut from its peers only (isolate), every node stopped (store-restart), each\n")
	b.WriteString("healed after 1.5×TTL. \"(3 nodes)\" rows ran on\n")
	b.WriteString("a 3-node cluster, each candidate reaching every node; in the soak (`make soak`) every kind rotates\n")
	b.WriteString("there, one cycle after another; the default run puts the client-side kinds on a single node. The\n")
	b.WriteString("history checker (package `integration/history`) judges the merged histories: (a) tokens increase, (b) no\n")
	b.WriteString("overlap beyond the drift allowance, (c) no stale write accepted by a `fencing.Guard` or a guarded\n")
	b.WriteString("store write, (d) a leader within TTL + renew interval + the store's recovery time after each heal\n")
	b.WriteString("(for store faults, plus the store's own recovery from the fault), (e) no write sent by a leader,\n")
	b.WriteString("paused or not, after a leader with a higher token began.\n\n")
	b.WriteString("| store | TTL | fault cycles run | violations | writes accepted / rejected (fence · store) | run time |\n|---|---|---|---|---|---|\n")
	for _, o := range os {
		total, kinds := 0, []string{}
		for _, f := range o.kinds {
			total += o.ran[f.name]
			kinds = append(kinds, fmt.Sprintf("%s %d", f.name, o.ran[f.name]))
		}
		w := o.report.Writes
		fmt.Fprintf(&b, "| %s | %v | %d (%s) | %d | %d / %d · %d / %d | %v |\n", o.backend, o.ttl, total,
			strings.Join(kinds, ", "), len(o.report.Violations), w[history.GuardFence].Accepted, w[history.GuardFence].Rejected,
			w[history.GuardStore].Accepted, w[history.GuardStore].Rejected, o.took.Round(time.Second))
	}
	renderPolicies(&b, os)
	renderTimeline(&b, os, pic)
	b.WriteString("\nHow long the leader kept acting after the fault began (its believed leadership ended), and how long until\n")
	b.WriteString("a leader with a higher token began; median / max over the cycles (— : did not happen).\n\n")
	b.WriteString("| store | fault | stopped acting after | × TTL (max) | new leader after |\n|---|---|---|---|---|\n")
	for _, o := range os {
		stops := stopping(o.report, func(f history.FaultStat) time.Duration { return f.Stop })
		news := stopping(o.report, func(f history.FaultStat) time.Duration { return f.NewLeader })
		for _, name := range reportKinds() {
			if o.ran[name] == 0 && len(stops[name])+len(news[name]) == 0 {
				continue
			}
			ratio := "—"
			if s := stops[name]; len(s) > 0 {
				ratio = fmt.Sprintf("%.2f", float64(s[len(s)-1])/float64(o.ttl))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", o.backend, name, medMax(stops[name]), ratio, medMax(news[name]))
		}
	}
	b.WriteString("\nA paused leader \"acts\" until it runs again and sees its deadline passed: each candidate checks\n")
	b.WriteString("Leadership.Valid right before each write, so it must make no write after a successor began (check e);\n")
	b.WriteString("its straggling writes after it stopped must be rejected (check c). The violations column covers both.\n")
	b.WriteString("Latency below lease.Options.LatencyBound (latency-low, 0.7× it) must\n")
	b.WriteString("leave the leader in place (no new leader; a loss fails the run). For store faults the times are those of the election\n")
	b.WriteString("leader of the moment; \"—\" means it kept leading through the fault.\n")
	stores := false
	for _, o := range os {
		stores = stores || o.cfg.FaultRecovery != nil
	}
	if stores {
		b.WriteString("\n" + storeFaultNotes)
	}
	for _, o := range os {
		if fr := o.cfg.FaultRecovery; fr != nil {
			fmt.Fprintf(&b, "\n%s: check (d) allowed %v after each heal, plus the store's own recovery: %v after store-kill and\n"+
				"partition (a new store leader), %v after store-restart (the cluster serving again, then a store leader).\n",
				o.backend, o.cfg.Recovery.Round(time.Millisecond), fr["store-kill"], fr["store-restart"])
		}
	}
	return b.String()
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

// renderPolicies renders the policy events' counts, if any ran.
func renderPolicies(b *strings.Builder, os []outcome) {
	ran := false
	for _, o := range os {
		ran = ran || len(o.pol.counts) > 0 || len(o.pol.yields) > 0
	}
	if !ran {
		return
	}
	b.WriteString("\nPolicy events (integration/faults/policy_test.go), one per cycle in a soak, after the fault\n")
	b.WriteString("healed or while it was active (during); outcome counts; \"new leader after\" is from the event to the\n")
	b.WriteString("new leader acting, median / max, after a fault only. Handovers the candidates made, by cause, as\n")
	b.WriteString("their lease.PolicyMetrics reported them (preempt: a higher priority took over).\n\n")
	b.WriteString("| store | event | after · during | outcomes | new leader after |\n|---|---|---|---|---|\n")
	for _, o := range os {
		for _, k := range policyKinds {
			c := o.pol.counts
			if c[k+"/after"]+c[k+"/during"] == 0 {
				continue
			}
			var outs []string
			for _, key := range slices.Sorted(maps.Keys(c)) {
				if rest, ok := strings.CutPrefix(key, k+"/"); ok && rest != "after" && rest != "during" {
					outs = append(outs, fmt.Sprintf("%s %d", rest, c[key]))
				}
			}
			lat := slices.Sorted(slices.Values(o.pol.lat[k]))
			fmt.Fprintf(b, "| %s | %s | %d · %d | %s | %s |\n", o.backend, k, c[k+"/after"], c[k+"/during"],
				strings.Join(outs, ", "), medMax(lat))
		}
		var ys []string
		for _, cause := range slices.Sorted(maps.Keys(o.pol.yields)) {
			ys = append(ys, fmt.Sprintf("%s %d", cause, o.pol.yields[cause]))
		}
		settle := fmt.Sprintf("settle: preempted %d, overdue %d", o.pol.counts["settle/preempted"], o.pol.counts["settle/preemption-overdue"])
		fmt.Fprintf(b, "| %s | handovers by cause | — | %s; %s | — |\n", o.backend, strings.Join(ys, ", "), settle)
	}
}

func medMax(ds []time.Duration) string {
	if len(ds) == 0 {
		return "—"
	}
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("%v / %v", r(ds[len(ds)/2]), r(ds[len(ds)-1]))
}

// storeFaultNotes explains the store faults and their recovery allowances
// in the report.
const storeFaultNotes = `The store faults, in detail (integration/faults/store_faults_test.go):

- **store-kill**: the node that is the store's own leader (etcd raft leader, ZooKeeper leader, Consul
  raft leader; asked of each node) is SIGKILLed with ` + "`" + `docker kill` + "`" + `; the two others elect a new store
  leader while the fault holds (1.5×TTL), then the node is started again and rejoins.
- **partition**: one node is disconnected from the cluster network (` + "`" + `docker network disconnect` + "`" + `) and
  reconnected after 1.5×TTL. It is the node the election leader's client starts on (candidate cN on
  node N-1 mod 3): the one a Consul candidate talks to until it fails over; etcd's client balances
  over all nodes; ZooKeeper's picks one at random. The cut node reaches neither its peers nor, via its
  published port, any client: clients fail over to the majority.
- **isolate**: the same node is cut from its peers only: iptables rules in its network namespace
  drop every packet to and from the other nodes (` + "`" + `stores.Cluster.IsolatePeers` + "`" + `), and are removed
  after 1.5×TTL. Its clients still reach it, and it answers them for as long as it has not noticed
  (a ZooKeeper follower: syncLimit ticks, 1 s here).
- **store-restart**: every node is stopped at once (` + "`" + `docker stop` + "`" + `, SIGTERM then SIGKILL after 1 s) and
  all are started again after 1.5×TTL; data survive (same containers).

Check (d) allows, after the heal of a store fault, the store's own recovery on top of TTL + renew
interval + the backend's recovery. Measured on these machines (integration/stores TestClusterFaults
and the fault suite's log): a new store leader after a leader kill or partition in ~2.0 s (etcd),
0.2–1.3 s (ZooKeeper), ~11 s (Consul, raft_multiplier = 1; more than the ~2 s of STORES.md); a whole
cluster serving again after a restart in 0.1–2.0 s (etcd), 2.3–5.7 s (ZooKeeper), 1.0–3.3 s
(Consul). Allowed: store-kill/partition/isolate +3 s (etcd), +1 s (ZooKeeper), +15 s (Consul); store-restart
+8 s (etcd), +11 s (ZooKeeper), +25 s (Consul) (restart + a new store leader). After a store-restart
the old holder's session outlives the outage (etcd extends leases on a new store leader; Consul
restarts session timers, invalidating between TTL and 2×TTL), so the new leader comes up to ~2×TTL
after the heal on Consul.
`

// renderTimeline shows the timeline picture pic with its caption.
func renderTimeline(b *strings.Builder, os []outcome, pic string) {
	var runs []string
	for _, o := range os {
		runs = append(runs, fmt.Sprintf("%s, %s", o.backend, o.timeline.shown))
	}
	fmt.Fprintf(b, "\n![Timeline of the fault runs](%s)\n\n", pic)
	fmt.Fprintf(b, "*Timeline of the runs above* (`%s`), one panel per run, each a stretch of it:\n%s.\n", pic, strings.Join(runs, "; "))
	b.WriteString(timelineCaption)
}

// timelineCaption explains the timeline picture.
const timelineCaption = `One row per candidate process (thin line: alive); a bar per leadership, from the candidate's Lead
to its Unlead or crash (×), labelled with its fencing token, grey while the candidate was paused
(SIGSTOP); the faults shaded from injection to heal, labelled by kind (a kill heals at once, by
starting a replacement); a violation, if any, as a red line labelled with its check's letter. Between
one bar and the next lies a hand-over: the old leader stopped acting before the new one began.
`
