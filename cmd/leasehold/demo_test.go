package main

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDemo runs the README's demo and checks its story: a crash hand-over
// with a higher token, the old leader stopped first, the stale write
// rejected, a resign hand-over, a preemption by a candidate of higher
// priority, an operator's handover to the candidate it names, tokens
// rising at every term, and all of it, shutdown included, within 10 s by
// the demo's own clock.
func TestDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out strings.Builder
	if code, err := runDemo(ctx, &out, nil); code != 0 || err != nil {
		t.Fatalf("demo: exit %d, %v\n%s", code, err, out.String())
	}
	s := out.String()
	t.Log("\n" + s)
	for _, want := range []string{"crash hand-over took", "had stopped acting", "guarded resource rejects it",
		"resign hand-over took", "preemption hand-over took", "planned hand-over took",
		"done: the guarded resource accepted", "every candidate closed"} {
		if !strings.Contains(s, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if strings.Contains(s, "BUG") || strings.Contains(s, "write rejected") {
		t.Errorf("demo reported a fault")
	}
	checkDemoTerms(t, s)
	if took := demoClock(t, s); took >= 10*time.Second {
		t.Errorf("the demo took %v by its own clock, want under 10s", took)
	}
}

var (
	demoLeadsRE   = regexp.MustCompile(`(candidate-\d) leads with fencing token (\d+)`)
	demoAskedRE   = regexp.MustCompile(`asks for a handover to (candidate-\d)`)
	demoElapsedRE = regexp.MustCompile(`(?m)^\s*(\d+\.\d+)s  `)
)

// checkDemoTerms checks the five terms: tokens strictly rising, the
// fourth taken by preemption by a priority-10 candidate, the fifth the
// one the operator named, another priority-10 candidate.
func checkDemoTerms(t *testing.T, s string) {
	t.Helper()
	var leaders []string
	var last uint64
	for _, m := range demoLeadsRE.FindAllStringSubmatch(s, -1) {
		tok, _ := strconv.ParseUint(m[2], 10, 64)
		if tok <= last {
			t.Errorf("%s leads with token %d, not above the last term's %d", m[1], tok, last)
		}
		last = tok
		leaders = append(leaders, m[1])
	}
	if len(leaders) != 5 {
		t.Fatalf("leaders %v, want 5 terms: first, after the crash, the resign, the preemption and the handover", leaders)
	}
	high := map[string]bool{"candidate-4": true, "candidate-5": true}
	if !high[leaders[3]] {
		t.Errorf("the preemption gave leadership to %s, want a priority-10 candidate (candidate-4 or -5)", leaders[3])
	}
	asked := demoAskedRE.FindStringSubmatch(s)
	if asked == nil || !high[asked[1]] || asked[1] == leaders[3] {
		t.Fatalf("the operator's handover named %v, want the priority-10 candidate that did not lead", asked)
	}
	if leaders[4] != asked[1] {
		t.Errorf("after the handover to %s, %s leads", asked[1], leaders[4])
	}
}

// demoClock returns the time of the demo's last line, by its own clock.
func demoClock(t *testing.T, s string) time.Duration {
	t.Helper()
	all := demoElapsedRE.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		t.Fatal("no timed line in the demo's output")
	}
	secs, err := strconv.ParseFloat(all[len(all)-1][1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(secs * float64(time.Second))
}
