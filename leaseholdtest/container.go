package leaseholdtest

import (
	"testing"

	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/integration/stores"
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
// LEASEHOLD_ZOOKEEPER_IMAGE or LEASEHOLD_CONSUL_IMAGE name another; the
// image must be present locally (docker pull it first). Test traffic must
// stay on loopback: set TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 when the
// engine is local. ZooKeeper runs with tickTime 200 ms (session TTLs from
// 400 ms to 4 s); Consul grants TTLs from 10 s.
//
// Without a Docker engine, the image or TESTCONTAINERS_HOST_OVERRIDE the
// test is skipped with a message saying what is missing; under CI=true it
// fails instead.
func Container(t testing.TB, kind string, opts ContainerOptions) *Server {
	t.Helper()
	n := opts.Nodes
	if n == 0 {
		n = 1
	}
	if n != 1 && n != 3 {
		t.Fatalf("leaseholdtest: ContainerOptions.Nodes is %d; want 1 or 3", opts.Nodes)
	}
	switch kind {
	case "etcd":
		h := &etcdtest.Harness{Endpoints: stores.Etcd(t, n)}
		t.Cleanup(h.Close)
		return newServer(t, kind, h.Endpoints, h)
	case "zookeeper":
		h := &zktest.Harness{Servers: stores.ZooKeeper(t, n), TickTime: stores.ZooKeeperTick}
		return newServer(t, kind, h.Servers, h)
	case "consul":
		addrs := stores.Consul(t, n)
		h := &consultest.Harness{Addr: addrs[0]}
		return newServer(t, kind, addrs, h)
	}
	t.Fatalf(`leaseholdtest: store kind %q; want "etcd", "zookeeper" or "consul"`, kind)
	return nil
}
