package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/leasetest"
	"github.com/leasehold/leasehold/zookeeper/zktest"
)

// TestEtcdAuth runs the auth suite against etcd in a container of its
// own, with RBAC limited to the adapter's prefix (see etcdtest.AuthHarness).
func TestEtcdAuth(t *testing.T) {
	h := &etcdtest.AuthHarness{Endpoints: stores.Etcd(t, 1)}
	h.Setup(t)
	leasetest.RunAuthTests(t, h, lease.Options{TTL: 2 * time.Second})
}

// TestEtcdAuthTokenExpiry runs etcdtest.TokenExpiry against etcd in a
// container whose auth tokens live 5 s (--auth-token-ttl=5): a candidate
// waits three token lifetimes before it is promoted, and the leader leads
// as long (etcd issue 17623).
func TestEtcdAuthTokenExpiry(t *testing.T) {
	const tokenTTL = 5 // seconds
	h := &etcdtest.AuthHarness{Endpoints: stores.EtcdWith(t, 1, fmt.Sprintf("--auth-token-ttl=%d", tokenTTL))}
	h.Setup(t)
	x := &etcdtest.TokenExpiry{Endpoints: h.Endpoints, TokenTTL: tokenTTL * time.Second, Lifetimes: 3, Resolution: time.Second}
	f := x.Run(t)
	t.Logf("token TTL %ds; waited %v, led %v (%.1f lifetimes); invalid-token refusals retried by clientv3: %d, reaching the electors: %d",
		tokenTTL, f.Waited.Round(time.Millisecond), f.Led.Round(time.Millisecond), f.Led.Seconds()/tokenTTL, f.InvalidRetried, f.InvalidSeen)
}

// TestConsulAuth runs the auth suite against a Consul agent with ACLs on
// and default_policy = "deny" (see consultest.AuthHarness): read-only KV,
// no session:write, no rights, an unknown token and none at all.
func TestConsulAuth(t *testing.T) {
	h := &consultest.AuthHarness{Addr: stores.ConsulACL(t), ManagementToken: stores.ConsulManagementToken}
	h.Setup(t)
	leasetest.RunAuthTests(t, h, lease.Options{TTL: consul.MinTTL})
}

// TestZooKeeperAuth runs the auth suite against ZooKeeper in a container of
// its own with digest ACLs (see zktest.AuthHarness): read-only, no rights,
// a wrong password, a refused scheme and no credentials.
func TestZooKeeperAuth(t *testing.T) {
	h := &zktest.AuthHarness{Servers: stores.ZooKeeper(t, 1), TickTime: stores.ZooKeeperTick}
	h.Setup(t)
	leasetest.RunAuthTests(t, h, lease.Options{TTL: 2 * time.Second})
}
