package etcd_test

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/leasetest"
)

func TestElector(t *testing.T) {
	leasetest.RunElectorTests(t, harness, lease.Options{TTL: 2 * time.Second})
}

// TestElectorKeyMode runs the whole suite in key mode too; TestElector
// runs it in the default, the ordered queue.
func TestElectorKeyMode(t *testing.T) {
	leasetest.RunElectorTests(t, harness, lease.Options{TTL: 2 * time.Second, Wait: lease.WaitKey})
}
