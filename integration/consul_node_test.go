package integration

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/internal/keys"
)

// TestConsulSessionEndsWithItsNode pins down the Consul behaviour behind
// the fault soak's two check-(b) violations (docs/faults.md): a session
// belongs to the node of the agent that created it, and when that node
// fails Consul invalidates the session, and deletes its keys, long before
// the session's TTL, even with no health checks. A leader whose agent node
// fails can therefore lose its key while it still believes it leads, until
// it next hears from Consul; fencing covers that window. If this test
// starts failing, Consul changed and docs/stores.md's Consul notes must too.
func TestConsulSessionEndsWithItsNode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, victim, other := followers(ctx, t)
	a, b := consulClient(t, c.Addrs()[victim]), consulClient(t, c.Addrs()[other])
	const ttl = 60 * time.Second
	id, _, err := a.Session().CreateNoChecks(&api.SessionEntry{TTL: ttl.String(), Behavior: api.SessionBehaviorDelete}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _, err := a.KV().Acquire(&api.KVPair{Key: "node-test/k", Session: id}, nil); !ok || err != nil {
		t.Fatalf("acquire: %v, %v", ok, err)
	}
	_, meta, err := b.KV().Get("node-test/k", (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(ctx, victim); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	for idx := meta.LastIndex; ; { // blocking queries on the key until it goes
		p, m, err := b.KV().Get("node-test/k", (&api.QueryOptions{WaitIndex: idx, WaitTime: ttl}).WithContext(ctx))
		if err != nil {
			t.Fatalf("key still held %v after its session's node was killed (TTL %v): %v", time.Since(killed), ttl, err)
		}
		if p == nil {
			d := time.Since(killed)
			t.Logf("session %s's key deleted %v after its node was killed (TTL %v)", id, d.Round(100*time.Millisecond), ttl)
			if d >= ttl {
				t.Fatalf("the key outlived the TTL: Consul no longer ends sessions with their node")
			}
			return
		}
		idx = m.LastIndex
	}
}

// followers starts a 3-server Consul cluster and names its two followers:
// the one to kill (no store re-election follows) and the one to ask.
func followers(ctx context.Context, t *testing.T) (c *stores.Cluster, victim, other int) {
	c = stores.ConsulCluster(t, 3)
	lead, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c, (lead + 1) % 3, (lead + 2) % 3
}

func consulClient(t *testing.T, addr string) *api.Client {
	cfg := api.DefaultConfig()
	cfg.Address = addr
	cl, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// TestConsulSessionNodeOutlivesAgentNode: with consul.Options.SessionNode
// the session is bound to a catalog node no agent runs, so killing the
// agent it was made through leaves the session and its key alone.
func TestConsulSessionNodeOutlivesAgentNode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, victim, other := followers(ctx, t)
	st, err := consul.New(consulClient(t, c.Addrs()[victim]), consul.Options{SessionNode: "leasehold-node-test"})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := driver.Of(st).NewSession(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := ss.Create(ctx, "node-test", []byte("holder"))
	if err != nil {
		t.Fatal(err)
	}
	b := consulClient(t, c.Addrs()[other])
	key := keys.Leader(consul.DefaultPrefix, "node-test")
	_, meta, err := b.KV().Get(key, (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(ctx, victim); err != nil {
		t.Fatal(err)
	}
	// Without SessionNode the key goes about 8 s after the kill (above);
	// here it must still be there 20 s after.
	const hold = 20 * time.Second
	deadline := time.Now().Add(hold)
	for idx := meta.LastIndex; time.Until(deadline) > 0; {
		p, m, err := b.KV().Get(key, (&api.QueryOptions{WaitIndex: idx, WaitTime: time.Until(deadline)}).WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if p == nil || p.Session != rec.Owner {
			t.Fatalf("key %q lost (%+v) after the session's agent was killed, though the session is on node leasehold-node-test", key, p)
		}
		idx = m.LastIndex
	}
	t.Logf("key held %v after the agent node was killed; session %s on leasehold-node-test", hold, rec.Owner)
}
