package shardtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/leaseholdtest"
)

// Store is the store the scenarios run on.
type Store struct {
	// Server is the store, shared by the scenarios: each has a group of
	// its own.
	Server *leaseholdtest.Server
	// TTL is the members' electors' TTL, within the store's range.
	TTL time.Duration
	// Takeover bounds the time from a member's crash (its link cut) to
	// the others holding all its shards: the store's expiry of a silent
	// session after TTL, and a campaign.
	Takeover time.Duration
	// HandOff bounds the time a shard handed over waits for its new
	// holder to report it, in a join's burst of handovers.
	HandOff time.Duration
}

// Run runs every scenario on st, each as a subtest.
func Run(t *testing.T, st Store) {
	for _, c := range []struct {
		name string
		f    func(*testing.T, Store)
	}{
		{"ColdStart", coldStart}, {"JoinHandsOver", joinHandsOver}, {"LeaveHandsOver", leaveHandsOver},
		{"Crash", crash}, {"Flap", flap}, {"SessionExpired", sessionExpired}, {"Weights", weights},
	} {
		t.Run(c.name, func(t *testing.T) { c.f(t, st) })
	}
}

// world returns a World of a new group of shards shards on st.
func (st Store) world(t *testing.T, shards int) *World { return NewWorld(t, st.Server, st.TTL, shards) }

// wait bounds a wait for the group to settle: a few Settles (TTL) and
// the moves.
func (st Store) wait() time.Duration { return max(30*time.Second, 4*st.TTL) }
