package main

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
)

// TestRunPolicyFlags: run's candidacy flags reach lease.Options; without
// them the options keep their defaults, and a leader follows the candidate
// list only on a store that keeps one.
func TestRunPolicyFlags(t *testing.T) {
	base := []string{"--store", "etcd://127.0.0.1:1/x", "--election", "a"}
	var f runFlags
	cmd, err := f.parse(append(base, "--priority", "7", "--preempt", "--preempt-after", "3s",
		"--damp", "2", "--damp-window", "1m", "--damp-penalty", "5s", "--damp-cap", "40s",
		"--label", "addr=10.0.0.7:8080", "--label", "version=1.2=rc", "--label", "empty=", "--", "true"))
	if err != nil {
		t.Fatal(err)
	}
	var o lease.Options
	f.policy.apply(&o)
	want := map[string]string{"addr": "10.0.0.7:8080", "version": "1.2=rc", "empty": ""}
	damp := lease.Damping{Losses: 2, Window: time.Minute, Penalty: 5 * time.Second, Cap: 40 * time.Second}
	if len(cmd) != 1 || o.Priority != 7 || o.NoLead || !o.Preempt || !maps.Equal(o.Labels, want) || !o.FollowRoster ||
		o.PreemptAfter != 3*time.Second || o.Damping != damp {
		t.Fatalf("cmd %q, options priority %d nolead %v preempt %v after %v damping %+v labels %v follow %v",
			cmd, o.Priority, o.NoLead, o.Preempt, o.PreemptAfter, o.Damping, o.Labels, o.FollowRoster)
	}
	var n runFlags
	if _, err := n.parse(append(base, "--no-lead", "--", "true")); err != nil {
		t.Fatal(err)
	}
	if n.policy.apply(&o); !o.NoLead {
		t.Fatal("--no-lead did not set NoLead")
	}
	var g runFlags
	if _, err := g.parse(append(base, "--", "true")); err != nil {
		t.Fatal(err)
	}
	o = lease.Options{}
	g.policy.apply(&o)
	if o.Priority != 0 || o.NoLead || o.Preempt || o.Labels != nil || !o.FollowRoster || o.PreemptAfter != 0 || o.Damping != (lease.Damping{}) {
		t.Fatalf("defaults: priority %d nolead %v preempt %v labels %v follow %v",
			o.Priority, o.NoLead, o.Preempt, o.Labels, o.FollowRoster)
	}
}

// TestPolicyFlagErrors: malformed candidacy flags fail before any store is
// contacted (the store here is unreachable) or anything runs, with exit 2
// and one line naming the flag.
func TestPolicyFlagErrors(t *testing.T) {
	base := []string{"run", "--store", "etcd://127.0.0.1:1/x", "--election", "a"}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--label", "addr"}, "-label"},
		{[]string{"--label", "=v"}, "-label"},
		{[]string{"--label", "a=1", "--label", "a=2"}, "-label"},
		{[]string{"--priority", "high"}, "-priority"},
		{[]string{"--preempt=maybe"}, "-preempt"},
		{[]string{"--preempt-after", "3s"}, "--preempt-after needs --preempt"},
		{[]string{"--damp-cap", "1m"}, "need --damp N"},
		{[]string{"--damp", "x"}, "-damp"},
		{[]string{"--no-lead", "--preempt"}, "NoLead with Preempt"},
		{[]string{"--no-lead", "--damp", "3"}, "NoLead with Damping.Losses 3"},
	} {
		args := append(append(append([]string{}, base...), tc.flags...), "--", "sh", "-c", "exit 9")
		in := start(t, args...)
		if code := in.exit(t, 10*time.Second); code != 2 {
			t.Errorf("%v: exit %d, want 2", tc.flags, code)
		}
		out := in.stderr.all.String()
		if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "leasehold: ") || !strings.Contains(out, tc.want) {
			t.Errorf("%v: stderr %q, want one line starting with leasehold: and naming %s", tc.flags, out, tc.want)
		}
	}
}
