package shard

import (
	"fmt"
	"strconv"
)

// Labels a member publishes in its record in the group's members election,
// next to its elector's Options.Labels. Tools such as `leasehold shards
// status` read them.
const (
	// WeightLabel holds the member's Options.Weight, in decimal.
	WeightLabel = "shard.weight"
	// ShardsLabel holds the group's Options.Shards, in decimal; members
	// of one group must agree on it.
	ShardsLabel = "shard.shards"
)

// MembersElection returns the name of the election whose candidate roster
// lists the members of group: every member campaigns for it, and only its
// roster matters.
func MembersElection(group string) string { return group + "/members" }

// Election returns the name of the election of shard s of a group of
// shards shards: the group name, "/s", and s in decimal, zero-padded to the
// width of shards-1, so that no shard's name is a prefix of another's.
func Election(group string, s, shards int) string {
	w := len(strconv.Itoa(max(shards-1, 0)))
	return fmt.Sprintf("%s/s%0*d", group, w, s)
}
