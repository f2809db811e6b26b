package shard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease/shard"
	"github.com/leasehold/leasehold/lease/shard/shardtest"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// TestJoinGiversReadNoShard: the members that hand shards to a joiner
// wait for its campaigns in the rosters they follow as holders, with no
// read of a shard's key or observer per shard: a join costs them no Get
// of a shard election, and about one roster listing per change of a
// moved shard's roster.
func TestJoinGiversReadNoShard(t *testing.T) {
	const shards = 256
	w := shardtest.NewWorld(t, leaseholdtest.Etcd(t), 2*time.Second, shards)
	var c counts
	ms := joinCounted(t, w, 3, &c)
	w.Await("balance", 30*time.Second, func() bool { return w.Balanced(ms...) })
	<-time.After(time.Second) // the cold start's tails, as in TestRequestsAtRest
	c.reset()
	ms = append(ms, w.Join("new", shard.Options{}))
	w.Await("balance with a fourth member", 30*time.Second, func() bool { return w.Balanced(ms...) })
	moved := len(ms[3].Group.Owned())
	c.mu.Lock()
	defer c.mu.Unlock()
	gets, lists := 0, 0
	for k, n := range c.seen {
		switch {
		case strings.HasPrefix(k, "Get "+w.Name()+"/s"):
			gets += n
		case strings.HasPrefix(k, "List "+w.Name()+"/s"):
			lists += n
		}
	}
	t.Logf("a join of %d moves: the givers made %d Gets and %d Lists of shard elections", moved, gets, lists)
	if gets != 0 {
		t.Errorf("the givers read shard keys %d times in a join, want none", gets)
	}
	if limit := 2 * moved; lists > limit {
		t.Errorf("the givers listed shard rosters %d times for %d moves, want at most %d", lists, moved, limit)
	}
}
