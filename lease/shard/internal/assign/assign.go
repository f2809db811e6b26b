// Package assign computes which member of a shard group owns each shard.
// It is pure: the same group name, shard count and members give the same
// assignment on every member, so that no coordinator is needed.
package assign

import (
	"slices"
	"strings"
)

// Member is one live member of a group, as its roster record names it.
type Member struct {
	// ID identifies the member; IDs are unique within a group.
	ID string
	// Weight is the member's relative share of the shards; at least 1.
	Weight int
	// Labels are the member's labels (for example a zone), matched by
	// a shard's preference.
	Labels map[string]string
}

// Prefer names the label a shard prefers its owner to carry: key and
// value. An empty key means no preference.
type Prefer func(shard int) (key, value string)

// Assign returns, for each shard s in [0, shards), the index in members of
// its owner, or -1 for every shard if members is empty. Each member owns
// its weighted share of the shards to within one: ⌊shards×w/W⌋ or
// ⌈shards×w/W⌉. The order of members does not matter. prefer may be nil.
func Assign(group string, shards int, members []Member, prefer Prefer) []int {
	if len(members) == 0 {
		owner := make([]int, shards)
		for s := range owner {
			owner[s] = -1
		}
		return owner
	}
	order := byID(members)
	sorted := make([]Member, len(members))
	for k, i := range order {
		sorted[k] = members[i]
	}
	mk := &flow{
		n:     len(sorted),
		cost:  costs(group, shards, sorted, prefer),
		owner: make([]int, shards),
		load:  make([]int, len(sorted)),
		quota: Quotas(shards, sorted),
	}
	owner := mk.solve()
	for s, k := range owner {
		owner[s] = order[k]
	}
	return owner
}

// byID returns the indices of members in ID order, so that the result does
// not depend on the order the caller lists them in.
func byID(members []Member) []int {
	idx := make([]int, len(members))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return strings.Compare(members[a].ID, members[b].ID)
	})
	return idx
}

// Quotas returns how many shards each member owns: shares by weight,
// rounded so that they sum to shards, each within one of its exact share.
// Remainders go to the largest fractional parts, ties by ID.
func Quotas(shards int, members []Member) []int {
	total := 0
	for _, m := range members {
		total += max(m.Weight, 1)
	}
	q := make([]int, len(members))
	rest := make([]int, len(members))
	left := shards
	for i, m := range members {
		w := max(m.Weight, 1)
		q[i], rest[i] = shards*w/total, shards*w%total
		left -= q[i]
	}
	idx := make([]int, len(members))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if rest[a] != rest[b] {
			return rest[b] - rest[a]
		}
		if members[a].ID < members[b].ID {
			return -1
		}
		return 1
	})
	for _, i := range idx[:left] {
		q[i]++
	}
	return q
}
