package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/storeurl"
)

// awaitCandidates waits until election on store lists want candidates (by
// identity, in any order) and returns them in succession order.
func awaitCandidates(t *testing.T, store, election string, want ...string) []lease.Candidate {
	t.Helper()
	last, ok := awaitRoster(t, store, election, 20*time.Second, func(cs []lease.Candidate) bool { return sameIdentities(cs, want) })
	if !ok {
		t.Fatalf("candidates of %s: %+v, want %v", election, last, want)
	}
	return last
}

// awaitRoster observes election's candidates on store until done says yes
// or timeout passes, and returns the last list seen and whether done said
// yes.
func awaitRoster(t *testing.T, store, election string, timeout time.Duration, done func([]lease.Candidate) bool) ([]lease.Candidate, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	st, err := storeurl.Open(ctx, store, storeurl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := lease.New(st.Store, lease.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ch, err := e.ObserveCandidates(ctx, election)
	if err != nil {
		t.Fatal(err)
	}
	var last []lease.Candidate
	for cs := range ch {
		if last = cs; done(cs) {
			return cs, true
		}
	}
	return last, false
}

func sameIdentities(cs []lease.Candidate, want []string) bool {
	if len(cs) != len(want) {
		return false
	}
	for _, c := range cs {
		if !strings.Contains(" "+strings.Join(want, " ")+" ", " "+c.Identity+" ") {
			return false
		}
	}
	return true
}

// text is all written so far.
func (l *lines) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// sleeper is a child that runs until stopped.
var sleeper = []string{"--", "sh", "-c", `test -n "$LEASEHOLD_TOKEN" || exit 9; while :; do sleep 0.05; done`}

// runAs starts leasehold run as identity with flags.
func runAs(t *testing.T, store, election, identity string, flags ...string) *instance {
	args := append([]string{"run", "--store", store, "--election", election, "--ttl", "2s",
		"--log-level", "error", "--identity", identity}, flags...)
	return start(t, append(args, sleeper...)...)
}

// TestStatusCandidates: status lists the candidates in succession order,
// with priority, state and labels, in text and in JSON.
func TestStatusCandidates(t *testing.T) {
	store := "etcd://" + etcdServer(t) + "/t"
	el := "jobs/c"
	a := runAs(t, store, el, "A", "--priority", "1", "--label", "role=a")
	a.stderr.await(t, "started child", 20*time.Second)
	runAs(t, store, el, "B", "--priority", "5", "--label", "addr=10.0.0.7:8080", "--label", "v=2")
	runAs(t, store, el, "C", "--no-lead")
	awaitCandidates(t, store, el, "A", "B", "C")

	st := start(t, "status", "--store", store, "--election", el)
	if code := st.exit(t, 10*time.Second); code != 0 {
		t.Fatalf("status exit %d\n%s", code, st.stderr.all.String())
	}
	out := st.stdout.all.String()
	for _, want := range []string{"leader A token", "B  ", "addr=10.0.0.7:8080,v=2", "role=a", "no-lead", "leader"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if b, c := strings.Index(out, "  B "), strings.Index(out, "  C "); b < 0 || c < b {
		t.Errorf("B (priority 5) should come before C (priority 0, no-lead):\n%s", out)
	}

	js := start(t, "status", "--store", store, "--election", el, "--json")
	if code := js.exit(t, 10*time.Second); code != 0 {
		t.Fatalf("status --json exit %d", code)
	}
	var got struct {
		Leader     bool   `json:"leader"`
		Identity   string `json:"identity"`
		Token      uint64 `json:"token"`
		Candidates []candidateJSON
	}
	if err := json.Unmarshal([]byte(js.stdout.all.String()), &got); err != nil {
		t.Fatalf("status --json: %v: %s", err, js.stdout.all.String())
	}
	byID := map[string]candidateJSON{}
	for _, c := range got.Candidates {
		byID[c.Identity] = c
	}
	if !got.Leader || got.Identity != "A" || got.Token == 0 || len(got.Candidates) != 3 ||
		!byID["A"].Leader || byID["B"].Priority != 5 || byID["B"].Labels["v"] != "2" || byID["C"].MayLead {
		t.Fatalf("status --json = %s", js.stdout.all.String())
	}
	t.Logf("status:\n%s", out)
}

// TestHandover: leasehold handover --to passes the election to the named
// candidate among waiters, with a higher token; the old leader stops its
// child first, and campaigns again.
func TestHandover(t *testing.T) {
	store := "etcd://" + etcdServer(t) + "/t"
	el := "jobs/h"
	a := runAs(t, store, el, "A")
	a.stderr.await(t, "started child", 20*time.Second)
	ids := []string{"A", "B", "C", "D"}
	ins := map[string]*instance{"A": a}
	for _, id := range ids[1:] {
		ins[id] = runAs(t, store, el, id)
	}
	awaitCandidates(t, store, el, ids...)
	tokenA := leaderToken(t, store, el, "A")

	h := start(t, "handover", "--store", store, "--election", el, "--to", "C", "--timeout", "20s", "--json")
	if code := h.exit(t, 30*time.Second); code != 0 {
		for _, id := range ids {
			t.Logf("%s:\n%s", id, ins[id].stderr.text())
		}
		t.Fatalf("handover exit %d\n%s", code, h.stderr.all.String())
	}
	var got infoJSON
	if err := json.Unmarshal([]byte(h.stdout.all.String()), &got); err != nil {
		t.Fatalf("handover --json: %v: %s", err, h.stdout.all.String())
	}
	if got.Identity != "C" || got.Token <= tokenA {
		t.Fatalf("handover --to C: %s; A had token %d", h.stdout.all.String(), tokenA)
	}
	stopped := stamp(t, a.stderr.await(t, "stopped", 10*time.Second))
	started := stamp(t, ins["C"].stderr.await(t, "started child", 10*time.Second))
	if !stopped.Before(started) {
		t.Fatalf("A's child gone at %v, C's started at %v: overlap", stopped, started)
	}
	cs := awaitCandidates(t, store, el, ids...) // A campaigns again
	if !cs[0].Leader || cs[0].Identity != "C" {
		t.Fatalf("candidates after the handover: %+v, want C leading first", cs)
	}

	next := start(t, "handover", "--store", store, "--election", el, "--timeout", "20s")
	if code := next.exit(t, 30*time.Second); code != 0 {
		t.Fatalf("handover to the next in line: exit %d\n%s", code, next.stderr.all.String())
	}
	line := next.stdout.all.String()
	if !strings.Contains(line, "leader "+cs[1].Identity+" ") {
		t.Fatalf("handover to the next in line: %s; candidates were %+v", line, cs)
	}
	t.Logf("handover --to C: C leads with token %d (A had %d); then %s", got.Token, tokenA, line)
}

// leaderToken returns the token of election's leader, which must be id.
func leaderToken(t *testing.T, store, election, id string) uint64 {
	t.Helper()
	st := start(t, "status", "--store", store, "--election", election, "--json")
	if code := st.exit(t, 10*time.Second); code != 0 {
		t.Fatalf("status exit %d", code)
	}
	var got infoJSON
	if err := json.Unmarshal([]byte(st.stdout.all.String()), &got); err != nil || got.Identity != id {
		t.Fatalf("status --json = %s (%v), want leader %s", st.stdout.all.String(), err, id)
	}
	return got.Token
}

// TestRunPreempt: with --preempt, a leader hands over to a candidate of
// higher priority after its stability window (one TTL), and stops its
// child before the other's starts.
func TestRunPreempt(t *testing.T) {
	store := "etcd://" + etcdServer(t) + "/t"
	el := "jobs/p"
	a := runAs(t, store, el, "A", "--preempt")
	a.stderr.await(t, "started child", 20*time.Second)
	joined := time.Now()
	b := runAs(t, store, el, "B", "--priority", "5")
	a.stderr.await(t, "handing over", 15*time.Second)
	stopped := stamp(t, a.stderr.await(t, "stopped", 10*time.Second))
	started := stamp(t, b.stderr.await(t, "started child", 10*time.Second))
	if !stopped.Before(started) {
		t.Fatalf("A's child gone at %v, B's started at %v: overlap", stopped, started)
	}
	t.Logf("B joined → B's child started after %v (TTL 2s)", started.Sub(joined))
}

// TestHandoverUsage: handover's bad command lines exit 2 before contacting
// the store.
func TestHandoverUsage(t *testing.T) {
	for _, args := range [][]string{
		{"handover", "--store", "etcd://127.0.0.1:1/x"},
		{"handover", "--store", "etcd://127.0.0.1:1/x", "--election", "a", "--timeout", "0s"},
		{"handover", "--store", "etcd://127.0.0.1:1/x", "--election", "a", "extra"},
	} {
		in := start(t, args...)
		if code := in.exit(t, 10*time.Second); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if out := in.stderr.all.String(); strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "leasehold: ") {
			t.Errorf("%v: stderr %q, want one line starting with leasehold:", args, out)
		}
	}
}
