package integration

import (
	"fmt"
	"testing"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/leasetest"
)

// TestConsul runs the conformance and elector suites, unchanged, against
// Consul in containers: a dev agent, and three servers (the clients talk to
// the first). The TTL is Consul's minimum, 10 s.
func TestConsul(t *testing.T) {
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("nodes=%d", n), func(t *testing.T) {
			h := &consultest.Harness{Addr: stores.Consul(t, n)[0]}
			t.Run("Conformance", func(t *testing.T) { backendtest.RunConformanceTests(t, h) })
			t.Run("Elector", func(t *testing.T) {
				leasetest.RunElectorTests(t, h, lease.Options{TTL: consul.MinTTL})
			})
		})
	}
}
