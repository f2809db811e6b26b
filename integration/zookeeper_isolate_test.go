package integration

import (
	"context"
	"testing"
	"time"

	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/zookeeper"
)

// TestZooKeeperRenewalThroughCutOffFollower: a renewal sent through a
// follower cut off from the ensemble's leader must not succeed. Such a
// follower answers its clients' reads and pings on its own until syncLimit
// ticks pass without word from the leader, while the leader, which learns
// of a session's activity only from its followers' reports, lets the
// session expire a TTL after the last report it got. A renewal the cut-off
// follower answered would move the holder's deadline past the moment the
// ensemble may hand its key to another: two leaders. With syncLimit ×
// tickTime at or above the TTL (ZooKeeper's defaults, 5 × 2 s, against a
// TTL of 4 to 10 s) that is seconds.
func TestZooKeeperRenewalThroughCutOffFollower(t *testing.T) {
	stores.RequireIsolation(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl := stores.ZooKeeperCluster(t, 3)
	lead, err := cl.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := (lead + 1) % len(cl.Nodes)
	s, err := zookeeper.New([]string{cl.Nodes[f].Addr}, zookeeper.Options{TickTime: stores.ZooKeeperTick})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const ttl = 2 * time.Second
	sess, err := driver.Of(s).NewSession(ctx, ttl)
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.KeepAlive(ctx); err != nil {
		t.Fatalf("renewal before the cut: %v", err)
	}
	if err := cl.IsolatePeers(ctx, f); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cl.HealPeers(context.Background(), f); err != nil {
			t.Error(err)
		}
	}()
	cut := time.Now()
	tick := time.NewTicker(ttl / 10) // a renewal every 200 ms at most
	defer tick.Stop()
	for ; time.Since(cut) < 2*ttl; <-tick.C { // past the follower's syncLimit and the session's TTL
		rctx, rcancel := context.WithTimeout(ctx, ttl/4)
		sent := time.Since(cut)
		err := sess.KeepAlive(rctx)
		rcancel()
		if err == nil {
			t.Fatalf("a renewal sent %v after its follower was cut off from the leader succeeded", sent.Round(time.Millisecond))
		}
		t.Logf("renewal sent at +%v: %v", sent.Round(time.Millisecond), err)
	}
}
