package leaseholdtest

import (
	"testing"

	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/internal/containers"
	"github.com/leasehold/leasehold/zookeeper/zktest"
)

// ContainerOptions configure Container.
type ContainerOptions struct {
	// Nodes is the number of servers: 1 or 3. Default 1.
	Nodes int
}

// Container starts a real store server of the given kind ("etcd",
// "zookeeper" or "consul") in Docker containers with testcontainers-go,
// one server or a cluster of three, and returns it once it serves. The
// containers (and their network) are removed when t ends.
//
// The images are the official ones (gcr.io/etcd-development/etcd:v3.7.3,
// zookeeper:3.8.0, hashicorp/consul:1.22.7) unless LEASEHOLD_ETCD_IMAGE,
// LEASEHOLD_ZOOKEEPER_IMAGE or LEASEHOLD_CONSUL_IMAGE, read at each call,
// name another. ZooKeeper runs with tickTime 200 ms (session TTLs from
// 400 ms to 4 s); Consul grants TTLs from 10 s.
//
// It needs a Docker engine and no variable; without the engine or the
// image it skips the test with a message that says what to do, and fails
// it under CI=true ("Docker, skips and CI" in the package doc).
func Container(t testing.TB, kind string, opts ContainerOptions) *Server {
	t.Helper()
	n := opts.Nodes
	if n == 0 {
		n = 1
	}
	if n != 1 && n != 3 {
		t.Fatalf("leaseholdtest: ContainerOptions.Nodes is %d; want 1 or 3", opts.Nodes)
	}
	image := containers.Image(kind)
	if image == "" {
		t.Fatalf(`leaseholdtest: store kind %q; want "etcd", "zookeeper" or "consul"`, kind)
	}
	addrs := startStore(t, dockerEngine{}, kind, image, n)
	switch kind {
	case "etcd":
		h := &etcdtest.Harness{Endpoints: addrs}
		t.Cleanup(h.Close)
		return newServer(t, kind, addrs, h)
	case "zookeeper":
		return newServer(t, kind, addrs, &zktest.Harness{Servers: addrs, TickTime: containers.ZooKeeperTick})
	default:
		return newServer(t, kind, addrs, &consultest.Harness{Addr: addrs[0]})
	}
}
