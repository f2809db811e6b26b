package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/storeurl"
)

// TestHandoverFails: handover's failures say what happened, and exit 1.
// A leader (here a program's, which keeps the key for most of its 10 s
// TTL while it yields) honours a request to B. A request made meanwhile,
// to C, fails as soon as B leads, saying that another request was
// honoured, not when its --timeout ends; one that times out while the
// leader yields says that it timed out and what it saw, and so does one
// with --timeout 1ms, which made no request. None of them blames the
// leader for not following its candidate list: it does.
func TestHandoverFails(t *testing.T) {
	store := "etcd://" + etcdServer(t) + "/t"
	el := "jobs/f"
	l := leadAs(t, store, el, "A")
	runAs(t, store, el, "B")
	runAs(t, store, el, "C")
	awaitCandidates(t, store, el, "A", "B", "C")

	quick := start(t, "handover", "--store", store, "--election", el, "--to", "B", "--timeout", "1ms")
	expectFailure(t, quick, 10*time.Second, "timed out after --timeout 1ms", "before the request was made")
	t.Logf("--timeout 1ms: %s", quick.stderr.text())

	first := start(t, "handover", "--store", store, "--election", el, "--to", "B", "--timeout", "20s")
	select {
	case <-l.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("A did not yield to the request to B within 10s")
	}
	late := start(t, "handover", "--store", store, "--election", el, "--to", "C", "--timeout", "1s")
	expectFailure(t, late, 10*time.Second, "timed out after --timeout 1s", `"A" still led`)
	t.Logf("timed out: %s", late.stderr.text())

	second := start(t, "handover", "--store", store, "--election", el, "--to", "C", "--timeout", "30s")
	awaitRequests(t, store, el, 2)
	if err := l.Resign(context.Background()); err != nil {
		t.Fatalf("A's resign after yielding: %v", err)
	}
	if code := first.exit(t, 20*time.Second); code != 0 || !strings.Contains(first.stdout.text(), "leader B ") {
		t.Fatalf("the request to B: exit %d, %s%s", code, first.stdout.text(), first.stderr.text())
	}
	expectFailure(t, second, 10*time.Second, "another request", "not honoured", `"B" leads`)
	t.Logf("overtaken: %s", second.stderr.text())
}

// expectFailure fails t unless in exits 1 within d, its stderr naming
// each of want and not hinting that the leader does not follow its
// candidate list.
func expectFailure(t *testing.T, in *instance, d time.Duration, want ...string) {
	t.Helper()
	code := in.exit(t, d)
	out := in.stderr.text()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("stderr lacks %q: %s", w, out)
		}
	}
	if code != 1 || strings.Contains(out, "FollowRoster") {
		t.Fatalf("exit %d, want 1 without a hint that the leader does not follow its list: %s", code, out)
	}
}

// leadAs makes identity lead election on store from a program's elector
// whose leadership, once it yields to a handover, keeps the key until it
// resigns or most of its 10 s TTL passes (SafetyMargin 9 s).
func leadAs(t *testing.T, store, election, identity string) *lease.Leadership {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := storeurl.Open(ctx, store, storeurl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e, err := lease.New(st.Store, lease.Options{Identity: identity, TTL: 10 * time.Second, SafetyMargin: 9 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	l, err := e.Campaign(ctx, election)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// awaitRequests waits until election on store lists n handover requests.
func awaitRequests(t *testing.T, store, election string, n int) {
	t.Helper()
	_, ok := awaitRoster(t, store, election, 10*time.Second, func(cs []lease.Candidate) bool {
		k := 0
		for _, c := range cs {
			if c.Requester {
				k++
			}
		}
		return k == n
	})
	if !ok {
		t.Fatalf("%s did not list %d requests within 10s", election, n)
	}
}
