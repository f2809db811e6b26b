package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/leasetest"
	"github.com/leasehold/leasehold/zookeeper/zktest"
)

// TestZooKeeper runs the conformance and elector suites, unchanged, against
// ZooKeeper in containers: one server and an ensemble of three, with
// tickTime 200 ms so that a 2 s session is allowed.
func TestZooKeeper(t *testing.T) {
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("nodes=%d", n), func(t *testing.T) {
			h := &zktest.Harness{Servers: stores.ZooKeeper(t, n), TickTime: stores.ZooKeeperTick}
			t.Run("Conformance", func(t *testing.T) { backendtest.RunConformanceTests(t, h) })
			t.Run("Elector", func(t *testing.T) {
				leasetest.RunElectorTests(t, h, lease.Options{TTL: 2 * time.Second})
			})
		})
	}
}
