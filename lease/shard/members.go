package shard

import (
	"fmt"
	"strconv"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard/internal/assign"
)

// member is one live member of the group as this member sees it.
type member struct {
	assign.Member
	seen time.Time // when this member first saw it in the roster, by its clock
}

// refusal is a record of the members roster left out of the group.
type refusal struct {
	identity, why string
}

// parseMembers reads the group's members from its members roster:
// candidates that may lead, neither superseded nor requests, one per
// identity, whose labels give a weight in [1, MaxWeight] and shards as
// the group's. The others are refused, with the reason.
func parseMembers(cands []lease.Candidate, shards int) ([]assign.Member, []refusal) {
	var ms []assign.Member
	var refused []refusal
	dup := map[string]bool{}
	for _, c := range cands {
		if c.Superseded || c.Requester || !c.MayLead || dup[c.Identity] {
			continue
		}
		dup[c.Identity] = true
		w, err := labelInt(c.Labels, WeightLabel, 1, MaxWeight)
		if err == nil {
			var n int
			if n, err = labelInt(c.Labels, ShardsLabel, 1, MaxShards); err == nil && n != shards {
				err = fmt.Errorf("%s is %d, this member's Shards %d", ShardsLabel, n, shards)
			}
		}
		if err != nil {
			refused = append(refused, refusal{c.Identity, err.Error()})
			continue
		}
		ms = append(ms, assign.Member{ID: c.Identity, Weight: w, Labels: c.Labels})
	}
	return ms, refused
}

// labelInt reads label key of labels as a decimal in [lo, hi].
func labelInt(labels map[string]string, key string, lo, hi int) (int, error) {
	v, ok := labels[key]
	if !ok {
		return 0, fmt.Errorf("no label %s", key)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s %q is not %d to %d", key, v, lo, hi)
	}
	return n, nil
}

// see returns ms with the time each was first seen: from seen, or now
// for a member not in it. A member that left and came back is seen anew.
func see(ms []assign.Member, seen map[string]time.Time, now time.Time) []member {
	out := make([]member, len(ms))
	for i, m := range ms {
		t, ok := seen[m.ID]
		if !ok {
			t = now
		}
		out[i] = member{m, t}
	}
	return out
}

// owners is the assignment the group's decisions use, as owner IDs per
// shard ("": none): all over every member, settled over those seen for
// Settle.
type owners struct {
	all, settled []string
}

// assignment computes the owners of every shard of group over ms, with me
// left out if leaving, at now; wake is how long until another member
// settles (0: none will).
func assignment(group string, shards int, prefer assign.Prefer, ms []member, me string, leaving bool,
	now time.Time, settle time.Duration) (o owners, wake time.Duration) {
	var all, settled []assign.Member
	for _, m := range ms {
		if leaving && m.ID == me {
			continue
		}
		all = append(all, m.Member)
		if age := now.Sub(m.seen); age >= settle {
			settled = append(settled, m.Member)
		} else if left := settle - age; wake == 0 || left < wake {
			wake = left
		}
	}
	return owners{ids(all, assign.Assign(group, shards, all, prefer)),
		ids(settled, assign.Assign(group, shards, settled, prefer))}, wake
}

// ids maps an assignment's member indexes to IDs.
func ids(ms []assign.Member, owner []int) []string {
	out := make([]string, len(owner))
	for s, i := range owner {
		if i >= 0 {
			out[s] = ms[i].ID
		}
	}
	return out
}
