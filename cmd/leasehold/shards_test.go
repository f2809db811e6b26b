package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
	"github.com/leasehold/leasehold/storeurl"
)

// TestShardsStatus: shards status counts each member's shards and its
// settled share, names a leader that is not a member, lists the shards
// without a leader and exits 4 for them, and names a record the members
// leave out (another shard count), in text and in JSON.
func TestShardsStatus(t *testing.T) {
	store := "etcd://" + etcdServer(t) + "/t"
	const group, shards = "g", 4
	member := func(id, weight string) *lease.LeaseElector {
		return testElector(t, store, lease.Options{Identity: id, Labels: map[string]string{shard.WeightLabel: weight, shard.ShardsLabel: "4"}})
	}
	m1, m2, x := member("m1", "3"), member("m2", "1"), testElector(t, store, lease.Options{Identity: "x"})
	campaign(t, m1, shard.MembersElection(group))
	for _, s := range []int{0, 1} {
		campaign(t, m1, shard.Election(group, s, shards))
	}
	campaign(t, x, shard.Election(group, 2, shards))
	go m2.Campaign(t.Context(), shard.MembersElection(group)) // waits in line behind m1
	bad := testElector(t, store, lease.Options{Identity: "bad", Labels: map[string]string{shard.WeightLabel: "1", shard.ShardsLabel: "5"}})
	go bad.Campaign(t.Context(), shard.MembersElection(group))
	awaitCandidates(t, store, shard.MembersElection(group), "m1", "m2", "bad")

	amb := start(t, "shards", "status", "--store", store, "--group", group)
	if code := amb.exit(t, 10*time.Second); code != 1 || !strings.Contains(amb.stderr.all.String(), "disagree on the shard count (4, 5)") {
		t.Fatalf("shards status with records of 4 and 5 shards: exit %d, want 1 and the disagreement named\n%s", code, amb.stderr.all.String())
	}
	st := start(t, "shards", "status", "--store", store, "--group", group, "--shards", "4")
	if code := st.exit(t, 10*time.Second); code != exitNoLeader {
		t.Fatalf("shards status exit %d, want %d (a shard has no leader)\n%s", code, exitNoLeader, st.stderr.all.String())
	}
	out := st.stdout.all.String()
	rows := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			rows[f[0]] = strings.Join(f, " ")
		}
	}
	for _, want := range []string{"m1 3 2 3", "m2 1 0 1", "x - 1 0 (not a member)", "bad - - 0 (left out: shard.shards is 5"} {
		if id := strings.Fields(want)[0]; !strings.HasPrefix(rows[id], want) {
			t.Errorf("shards status row %q, want %q:\n%s", rows[id], want, out)
		}
	}
	for _, want := range []string{"g: 4 shards, 2 members, 1 without a leader", "without a leader: [3]"} {
		if !strings.Contains(out, want) {
			t.Errorf("shards status lacks %q:\n%s", want, out)
		}
	}

	js := start(t, "shards", "status", "--store", store, "--group", group, "--shards", "4", "--json")
	if code := js.exit(t, 10*time.Second); code != exitNoLeader {
		t.Fatalf("shards status --json exit %d", code)
	}
	var got shardsJSON
	if err := json.Unmarshal([]byte(js.stdout.all.String()), &got); err != nil {
		t.Fatalf("shards status --json: %v: %s", err, js.stdout.all.String())
	}
	if got.Shards != 4 || len(got.Members) != 2 || got.Members[0].Owns != 2 || got.Members[0].Quota != 3 ||
		got.Strangers["x"] != 1 || got.Refused["bad"] == "" || len(got.Unowned) != 1 || got.Unowned[0] != 3 {
		t.Fatalf("shards status --json = %s", js.stdout.all.String())
	}
	t.Logf("shards status:\n%s", out)
}

// TestShardsStatusUsage: shards without status, or without a group, is a
// usage error, and so is a --shards out of range, found before the store
// is contacted (the store here is a closed port: exit 1 if contacted).
func TestShardsStatusUsage(t *testing.T) {
	for _, args := range [][]string{{"shards"}, {"shards", "list"}, {"shards", "status", "--store", "etcd://127.0.0.1:1/p"}} {
		var out, errw strings.Builder
		if code := run(context.Background(), args, &out, &errw); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errw.String())
		}
	}
	shards := func(n string) []string {
		return []string{"shards", "status", "--store", "etcd://127.0.0.1:1/p", "--group", "g", "--dial-timeout", "1s", "--shards", n}
	}
	want := []string{"-shards", "whole number from 1 to 65536"}
	checkRefusedFlags(t, []refusedFlag{{shards("-1"), want}, {shards("0"), want}, {shards("65537"), want}, {shards("x"), want}})
}

// testElector returns an elector on store, closed at cleanup.
func testElector(t *testing.T, store string, o lease.Options) *lease.LeaseElector {
	t.Helper()
	st, err := storeurl.Open(t.Context(), store, storeurl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o.TTL = 2 * time.Second
	e, err := lease.New(st.Store, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// campaign makes e lead election, or fails the test.
func campaign(t *testing.T, e *lease.LeaseElector, election string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := e.Campaign(ctx, election); err != nil {
		t.Fatalf("%s: campaign %s: %v", e.Identity(), election, err)
	}
}
