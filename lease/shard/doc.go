// Package shard spreads the shards of a group, each an ordinary leasehold
// election, evenly over the group's live members. Every member computes the
// same assignment from the group's members roster, campaigns only for its
// own shards, and hands over those it holds but should not: there is no
// coordinator.
package shard
