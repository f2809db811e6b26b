package zookeeper_test

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/leasetest"
)

// TestElector runs the elector suite in the default (queue) mode, and the
// tests of each mode on its own, with a 2s TTL, or the servers' least
// session timeout (2×tickTime) if that is longer.
func TestElector(t *testing.T) {
	h := harness(t)
	leasetest.RunElectorTests(t, h, lease.Options{TTL: max(2*time.Second, 2*h.TickTime)})
}
