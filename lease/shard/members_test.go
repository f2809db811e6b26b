package shard

import (
	"slices"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard/internal/assign"
)

func TestParseMembers(t *testing.T) {
	lab := func(w, n string) map[string]string { return map[string]string{WeightLabel: w, ShardsLabel: n} }
	cands := []lease.Candidate{
		{Identity: "a", MayLead: true, Labels: lab("2", "64")},
		{Identity: "a", MayLead: true, Labels: lab("2", "64")},                   // duplicate
		{Identity: "b", MayLead: true, Superseded: true, Labels: lab("1", "64")}, // superseded
		{Identity: "c", MayLead: false, Requester: true},                         // request
		{Identity: "d", MayLead: true, Labels: lab("1", "32")},                   // other Shards
		{Identity: "e", MayLead: true, Labels: lab("0", "64")},                   // weight out of range
		{Identity: "f", MayLead: true},                                           // no labels
		{Identity: "g", MayLead: true, Labels: lab("1", "64")},
	}
	ms, refused := parseMembers(cands, 64)
	var got []string
	for _, m := range ms {
		got = append(got, m.ID)
	}
	if !slices.Equal(got, []string{"a", "g"}) || ms[0].Weight != 2 {
		t.Errorf("members %+v, want a (weight 2) and g", ms)
	}
	var out []string
	for _, r := range refused {
		out = append(out, r.identity)
	}
	if !slices.Equal(out, []string{"d", "e", "f"}) {
		t.Errorf("refused %+v, want d, e, f", refused)
	}
}

// TestAssignmentSettles: a member seen less than Settle ago counts in the
// full assignment only, and the wake is when the next one settles; a
// leaving member leaves itself out.
func TestAssignmentSettles(t *testing.T) {
	now := time.Unix(1000, 0)
	ms := []member{
		{assign.Member{ID: "a", Weight: 1}, now.Add(-10 * time.Second)},
		{assign.Member{ID: "b", Weight: 1}, now.Add(-10 * time.Second)},
		{assign.Member{ID: "c", Weight: 1}, now.Add(-time.Second)},
	}
	o, wake := assignment("g", 30, nil, ms, "a", false, now, 3*time.Second)
	if wake != 2*time.Second {
		t.Errorf("wake %v, want 2s", wake)
	}
	count := func(ids []string, id string) int {
		n := 0
		for _, x := range ids {
			if x == id {
				n++
			}
		}
		return n
	}
	if count(o.all, "c") != 10 || count(o.settled, "c") != 0 || count(o.settled, "a") != 15 {
		t.Errorf("all %v, settled %v: want c to own 10 in all, none in settled", o.all, o.settled)
	}
	o, _ = assignment("g", 30, nil, ms, "a", true, now, 3*time.Second)
	if count(o.all, "a") != 0 || count(o.all, "b") != 15 {
		t.Errorf("leaving: all %v, want a to own none", o.all)
	}
}
