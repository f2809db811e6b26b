// Package assign computes which member of a shard group owns each shard.
// It is pure: the same group name, shard count and members give the same
// assignment on every member, so that no coordinator is needed.
package assign

import (
	"hash/fnv"
	"slices"
	"strconv"
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
	owner := make([]int, shards)
	if len(members) == 0 {
		for s := range owner {
			owner[s] = -1
		}
		return owner
	}
	quota := Quotas(shards, members)
	load := make([]int, len(members))
	order := make([]int, len(members))
	for s := range shards {
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			ha, hb := score(group, s, members[a].ID), score(group, s, members[b].ID)
			if ha != hb {
				if ha > hb {
					return -1
				}
				return 1
			}
			return 0
		})
		for _, i := range order {
			if load[i] < quota[i] {
				owner[s], load[i] = i, load[i]+1
				break
			}
		}
	}
	return owner
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

func score(group string, shard int, id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(group))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(shard)))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return h.Sum64()
}
