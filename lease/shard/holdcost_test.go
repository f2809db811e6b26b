package shard_test

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease/shard"
	"github.com/leasehold/leasehold/lease/shard/shardtest"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// TestHeldShardsNoGoroutine: a held shard costs its member no goroutine
// (each would keep a stack of a few KiB): once a member holds all of 400
// shards, next to none of its shard workers still runs.
func TestHeldShardsNoGoroutine(t *testing.T) {
	const shards = 400
	w := shardtest.NewWorld(t, leaseholdtest.Etcd(t), 2*time.Second, shards)
	m := w.Join("m0", shard.Options{Settle: time.Millisecond})
	w.Await("every shard held", 30*time.Second, func() bool { return w.Balanced(m) })
	n := workers()
	t.Logf("holding %d shards: %d shard workers run", shards, n)
	if n > shards/10 {
		t.Errorf("holding %d shards: %d shard workers run, want at most %d", shards, n, shards/10)
	}
}

// workers counts the goroutines in a shard worker (Group.work).
func workers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Count(buf[:n], []byte("shard.(*Group).work("))
		}
		buf = make([]byte, 2*len(buf))
	}
}
