package integration

import (
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
