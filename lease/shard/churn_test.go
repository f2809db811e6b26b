package shard_test

import (
	"testing"

	"github.com/leasehold/leasehold/lease/shard/shardtest"
)

// TestJoinChurnBound: a join moves at most 1.1×M/(N+1)+1 shards, and a
// leave of one of N+1 as many. A property of the assignment (package
// internal/assign), which the runtime moves exactly (TestJoinHandsOver,
// TestLeaveHandsOver).
func TestJoinChurnBound(t *testing.T) {
	for _, c := range []struct{ n, shards int }{{3, 64}, {3, 120}, {4, 100}, {5, 256}, {8, 1024}} {
		before := make([]string, c.n)
		for i := range before {
			before[i] = string(rune('a' + i))
		}
		after := append(before[:c.n:c.n], "new")
		if got, limit := shardtest.Churn("orders", c.shards, before, after), int(1.1*float64(c.shards)/float64(c.n+1))+1; got > limit {
			t.Errorf("N=%d M=%d: a join moves %d shards, want at most %d", c.n, c.shards, got, limit)
		}
		if got, limit := shardtest.Churn("orders", c.shards, after, before), int(1.1*float64(c.shards)/float64(c.n+1))+1; got > limit {
			t.Errorf("N=%d M=%d: a leave moves %d shards, want at most %d", c.n+1, c.shards, got, limit)
		}
	}
}
