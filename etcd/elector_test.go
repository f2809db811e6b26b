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

func TestElectorQueue(t *testing.T) {
	leasetest.RunElectorTests(t, harness, lease.Options{TTL: 2 * time.Second, Queue: true})
}
