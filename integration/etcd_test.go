package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/leasetest"
)

// TestEtcd runs the conformance and elector suites, unchanged, against etcd
// in containers: one member and three.
func TestEtcd(t *testing.T) {
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("nodes=%d", n), func(t *testing.T) {
			h := &etcdtest.Harness{Endpoints: stores.Etcd(t, n)}
			t.Cleanup(h.Close)
			t.Run("Conformance", func(t *testing.T) { backendtest.RunConformanceTests(t, h) })
			t.Run("Elector", func(t *testing.T) {
				leasetest.RunElectorTests(t, h, lease.Options{TTL: 2 * time.Second})
			})
		})
	}
}
