// Package shard spreads the shards of a group, each an ordinary leasehold
// election, evenly over the group's live members. Every member computes the
// same assignment from the group's members roster, campaigns only for its
// own shards, and hands over those it holds but should not: there is no
// coordinator.
//
//	g, err := shard.Join(ctx, elector, "orders", shard.Options{Shards: 1024})
//	...
//	for ev := range g.Events() {
//		if ev.Released {
//			stop(ev.Shard) // ev.Leadership's context is already cancelled
//		} else {
//			go serve(ev.Leadership) // check Valid before each write; send Token
//		}
//	}
//	...
//	err = g.Leave(ctx) // from another goroutine: hands every shard over
//
// One elector (one store session) is one member. Each shard it holds is a
// *lease.Leadership of Election(group, s, Shards), with its own fencing
// token, context and Valid: everything package lease promises of a
// leadership holds for each shard.
//
// # How shards move
//
//   - A member campaigns for a shard once it is assigned to it both over
//     all members and over the members it has seen for Options.Settle; if
//     another holds it, it waits in line. A group started cold therefore
//     hands nothing over: its first members wait Settle, then take only
//     the shards they keep.
//   - A member hands a shard it holds to its new owner (Leadership.HandOver,
//     a pass of the key: the new owner's token is the pass's) once the
//     assignment over the members it has seen for Options.Settle agrees
//     with the one over all members: a member that joins and leaves
//     within Settle moves no held shard. It waits for the new owner's
//     campaign in the shard's roster, which it follows as holder
//     (Leadership.AwaitTarget: no read per shard), and has at most 4
//     handovers under way at once, so that each shard waits for its new
//     holder about one handover, not behind all of this member's others.
//   - Leave ends the membership first, then hands each held shard to its
//     new owner as soon as that one waits in the shard's election; Close
//     resigns them instead.
//   - A crashed member's shards go with its session, after the store's
//     TTL, and their new owners, campaigning already, take them at once.
//
// At rest the group makes no store request but its session's renewals: a
// holder waits on its keys and roster in the elector's watch set, and every
// member follows the members roster with one observer, which lists the
// roster once per change.
//
// Not promised: that a shard always has a holder (it has none between a
// crash and the store's expiry of the crashed session, and for a hand-off
// when moved), nor that shards are balanced while members come and go:
// balance (each member ⌊M×w/W⌋ or ⌈M×w/W⌉) holds once the roster has been
// stable for Settle and the moves are done.
//
// Options and the assignment may change in a minor version before v1
// (package lease's doc, section Stability).
package shard
