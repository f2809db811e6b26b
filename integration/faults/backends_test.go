package faults

import (
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/integration/faults/consulclient"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/zookeeper"
)

// backend says how to run the suite on one store.
type backend struct {
	name string
	ttl  time.Duration
	// recovery is the store's own time to free a silent session's key
	// after its TTL (the ExpiryGrace of its conformance harness).
	recovery time.Duration
	// cycles is the default number of fault cycles.
	cycles int
	// start starts a single-node store and returns its address.
	start func(t *testing.T) string
	// cluster starts the 3-node store of the store faults.
	cluster func(t *testing.T) *stores.Cluster
	// storeRecovery is the store's own time to serve again after its
	// leader node is killed or a node is cut off (a new store leader);
	// restartRecovery the time a whole cluster, started again, takes to
	// serve (measured; see docs/faults.md): check d's allowance for it,
	// beyond which a restart's heal counts from when the cluster served
	// (restartHealed).
	storeRecovery, restartRecovery time.Duration
	// storeCycles is the default number of store fault cycles.
	storeCycles int
	// shardCycles is the default number of a shard group's fault cycles
	// (shards_test.go); 0: no shard group runs by default.
	shardCycles int
	// observer returns a Store in the test process, dialed directly to
	// every node of the store.
	observer func(t *testing.T, addrs []string) *backends.Store
	// args are the candidate's flags for this backend.
	args []string
	// preemptAfter is the candidates' lease.Options.PreemptAfter (0: the
	// default, TTL): shorter on Consul, whose 10-s TTL would make every
	// preemption cost a cycle that long.
	preemptAfter time.Duration
}

var allBackends = []backend{
	{name: "etcd", ttl: 2 * time.Second, recovery: 500 * time.Millisecond, cycles: 10,
		start:         func(t *testing.T) string { return stripScheme(stores.Etcd(t, 1)[0]) },
		cluster:       func(t *testing.T) *stores.Cluster { return stores.EtcdCluster(t, 3) },
		storeRecovery: 3 * time.Second, restartRecovery: 5 * time.Second, storeCycles: 4, shardCycles: 8,
		observer: etcdObserver, args: []string{"-backend", "etcd", "-ttl", "2s"}},
	{name: "zookeeper", ttl: 2 * time.Second, recovery: stores.ZooKeeperTick, cycles: 10,
		start:         func(t *testing.T) string { return stores.ZooKeeper(t, 1)[0] },
		cluster:       func(t *testing.T) *stores.Cluster { return stores.ZooKeeperCluster(t, 3) },
		storeRecovery: time.Second, restartRecovery: 10 * time.Second, storeCycles: 4, shardCycles: 8,
		observer: zkObserver,
		args:     []string{"-backend", "zookeeper", "-ttl", "2s", "-tick", stores.ZooKeeperTick.String()}},
	{name: "consul", ttl: 10 * time.Second, recovery: 10 * time.Second, cycles: 5,
		start:         func(t *testing.T) string { return stores.Consul(t, 1)[0] },
		cluster:       func(t *testing.T) *stores.Cluster { return stores.ConsulCluster(t, 3) },
		storeRecovery: 15 * time.Second, restartRecovery: 10 * time.Second, storeCycles: 4,
		observer: consulObserver, args: []string{"-backend", "consul", "-ttl", "10s"}, preemptAfter: 3 * time.Second},
}

// stripScheme turns "http://127.0.0.1:1234" into "127.0.0.1:1234".
func stripScheme(ep string) string {
	for _, p := range []string{"http://", "https://"} {
		if len(ep) > len(p) && ep[:len(p)] == p {
			return ep[len(p):]
		}
	}
	return ep
}

func etcdObserver(t *testing.T, addrs []string) *backends.Store {
	c, err := clientv3.New(clientv3.Config{Endpoints: addrs, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func zkObserver(t *testing.T, addrs []string) *backends.Store {
	s, err := zookeeper.New(addrs, zookeeper.Options{TickTime: stores.ZooKeeperTick})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func consulObserver(t *testing.T, addrs []string) *backends.Store {
	c, err := consulclient.New(addrs, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := consul.New(c, consul.Options{})
	if err != nil {
		t.Fatal(fmt.Errorf("consul store: %w", err))
	}
	return s
}
