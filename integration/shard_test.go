package integration

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease/shard/shardtest"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// TestShardZooKeeper runs the shard group's scenarios on a ZooKeeper
// container (tickTime 200 ms): TTL 2 s; a silent session goes after
// TTL + up to one tick.
func TestShardZooKeeper(t *testing.T) {
	srv := leaseholdtest.Container(t, "zookeeper", leaseholdtest.ContainerOptions{})
	shardtest.Run(t, shardtest.Store{Server: srv, TTL: 2 * time.Second, Takeover: 5 * time.Second, HandOff: time.Second})
}

// TestShardConsul runs them on a Consul container: TTL 10 s, its least; a
// silent session goes after TTL to 2×TTL (its server's limit); a passed
// key wakes its waiter through a blocking query, slower in a burst.
func TestShardConsul(t *testing.T) {
	srv := leaseholdtest.Container(t, "consul", leaseholdtest.ContainerOptions{})
	shardtest.Run(t, shardtest.Store{Server: srv, TTL: 10 * time.Second, Takeover: 23 * time.Second, HandOff: 3 * time.Second})
}
