package faults

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/integration/history"
)

// reportLimit is docs/faults.md's size limit (internal/docscheck enforces
// it on the committed page).
const reportLimit = 10 * 1024

// soakOutcome makes up a soak's outcome on backend: every kind rotating,
// 200 cycles, policy events with as many outcome kinds as a soak shows.
func soakOutcome(backend string) outcome {
	ran, rep := map[string]int{}, history.Report{Writes: map[string]history.WriteCount{
		history.GuardFence: {Accepted: 180565, Rejected: 21}, history.GuardStore: {Accepted: 168339, Rejected: 57}}}
	for i, f := range allFaultKinds {
		ran[f.name] = 22 + i%2
		for j := range 3 {
			rep.Faults = append(rep.Faults, history.FaultStat{Fault: f.name, Stop: time.Duration(j+1) * 1234567 * time.Microsecond,
				NewLeader: time.Duration(j+1) * 15029 * time.Millisecond})
		}
	}
	counts := map[string]int{"settle/preempted": 165}
	for _, k := range policyKinds {
		counts[k+"/after"], counts[k+"/during"] = 36, 30
		for _, out := range []string{"lost", "new-leader", "next-in-line", "no-answer", "no-new-leader", "no-target",
			"not-handed-over", "not-leading", "not-sent", "ok", "to-named"} {
			counts[k+"/"+out] = 38
		}
		rep.Faults = append(rep.Faults, history.FaultStat{Fault: k, Stop: time.Millisecond, NewLeader: 21430 * time.Millisecond})
	}
	return outcome{backend: backend, ttl: 10 * time.Second, ran: ran, kinds: allFaultKinds, report: rep, took: 81 * time.Minute,
		cfg:      history.Config{Recovery: 25 * time.Second, FaultRecovery: map[string]time.Duration{"store-kill": 15 * time.Second, "store-restart": 25 * time.Second}},
		timeline: timeline{shown: "fault cycles 1–18 of 312"},
		pol: policyOutcome{counts: counts, yields: map[string]int{"handover": 43, "preempt": 244, "request": 44},
			lat: map[string][]time.Duration{"handover": {31 * time.Millisecond, 271 * time.Millisecond}}}}
}

// TestReportShape renders a made-up soak of three stores with shard
// groups: at most reportLimit bytes, with the date and commit, the
// method, fault kinds and checks, a table per run with its policy
// events, the timeline, and a shard run that stopped early says why;
// no notes by hand.
func TestReportShape(t *testing.T) {
	os := []outcome{soakOutcome("consul (3 nodes)"), soakOutcome("etcd (3 nodes)"), soakOutcome("zookeeper (3 nodes)")}
	var shards []shardOutcome
	for _, b := range []string{"consul", "etcd", "zookeeper"} {
		shards = append(shards, shardOutcome{backend: b + " (3 nodes) shards", ttl: 10 * time.Second, kinds: allFaultKinds,
			ran: map[string]int{"cut": 20}, report: history.ShardReport{Moves: 1234, ToBalance: []time.Duration{time.Second}}})
	}
	shards[1].stopped = "not balanced within 1m7.5s after cycle 45; shard 11 without an owner: key held by \"c8\""
	md := render(os, shards, "faults.png", stamp(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)))
	t.Logf("report: %d bytes", len(md))
	if len(md) > reportLimit {
		t.Errorf("report is %d bytes, limit %d", len(md), reportLimit)
	}
	want := []string{"Written by `make soak` (`integration/faults`) on 2026-11-28 at ", "## Method", "## Fault kinds", "## Checks",
		"## Timeline", "![Timeline of the fault runs](faults.png)", "## Shard groups",
		"| handover | 36 · 30 | 1ms / 1ms | 0.00 | 21.43s / 21.43s | lost 38, ",
		"| handovers by cause | | | | | handover 43, preempt 244, request 44; settle: preempted 165, overdue 0 |",
		"writes accepted / rejected 0 / 0.\n  **Stopped early:** not balanced within 1m7.5s after cycle 45; shard 11 without an owner: key held by \"c8\".\n- zookeeper"}
	for _, o := range os {
		want = append(want, fmt.Sprintf("\n## %s\n\nTTL 10s; 202 fault cycles in 1h21m0s; 0 violations;", o.backend))
	}
	for _, w := range want {
		if !strings.Contains(md, w) {
			t.Errorf("report lacks %q; got:\n%s", w, md)
		}
	}
	if strings.Contains(strings.ToLower(md), "issue") {
		t.Errorf("report names an issue:\n%s", md)
	}
}

// TestViolationsByCheck: the report counts violations by check, so a
// reader sees which check a run failed, not only how often.
func TestViolationsByCheck(t *testing.T) {
	if got := violations(nil); got != "0 violations" {
		t.Errorf("violations(nil) = %q", got)
	}
	vs := []history.Violation{{Check: history.CheckBalance}, {Check: history.CheckRecovery}, {Check: history.CheckRecovery}}
	want := "3 violations (2× d: leader after heal; 1× f: balanced after heal)"
	if got := violations(vs); got != want {
		t.Errorf("violations = %q, want %q", got, want)
	}
}
