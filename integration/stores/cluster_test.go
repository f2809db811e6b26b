package stores

import (
	"context"
	"testing"
	"time"
)

// TestClusterFaults drives the node controls once: kill the store leader
// and restart it, cut a node from the network (it must stop answering) and
// reconnect it, restart the whole cluster; the cluster must serve again
// after each. It runs on etcd and ZooKeeper (Consul's controls are the
// same code, and the fault suite drives them on all three stores).
func TestClusterFaults(t *testing.T) {
	for _, k := range []struct {
		name  string
		start func(testing.TB, int) *Cluster
	}{{"etcd", EtcdCluster}, {"zookeeper", ZooKeeperCluster}} {
		t.Run(k.name, func(t *testing.T) {
			c := k.start(t, 3)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			l := leader(t, ctx, c)
			if err := c.Kill(ctx, l); err != nil {
				t.Fatal(err)
			}
			begin := time.Now()
			nl := leader(t, ctx, c)
			t.Logf("leader %s killed: %s leads after %v", c.Nodes[l].Name, c.Nodes[nl].Name, time.Since(begin))
			if nl == l {
				t.Fatalf("killed node %s still leads", c.Nodes[l].Name)
			}
			if err := c.Start(ctx, l); err != nil {
				t.Fatal(err)
			}
			ready(t, ctx, c)
			if err := c.Disconnect(ctx, nl); err != nil {
				t.Fatal(err)
			}
			if _, err := c.isLeader(ctx, c.Nodes[nl].Addr); err == nil {
				t.Fatalf("%s still answers on %s while disconnected", c.Nodes[nl].Name, c.Nodes[nl].Addr)
			}
			begin = time.Now()
			nl2 := leader(t, ctx, c)
			t.Logf("leader %s disconnected: %s leads after %v", c.Nodes[nl].Name, c.Nodes[nl2].Name, time.Since(begin))
			if err := c.Reconnect(ctx, nl); err != nil {
				t.Fatal(err)
			}
			ready(t, ctx, c)
			for i := range c.Nodes {
				if err := c.Stop(ctx, i, time.Second); err != nil {
					t.Fatal(err)
				}
			}
			begin = time.Now()
			for i := range c.Nodes {
				if err := c.Start(ctx, i); err != nil {
					t.Fatal(err)
				}
			}
			ready(t, ctx, c)
			t.Logf("full restart: serving %v after start", time.Since(begin))
		})
	}
}

func leader(t *testing.T, ctx context.Context, c *Cluster) int {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		i, err := c.Leader(ctx)
		if err == nil {
			return i
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: no leader: %v", c.Kind, err)
		case <-tick.C:
		}
	}
}

func ready(t *testing.T, ctx context.Context, c *Cluster) {
	t.Helper()
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
}
