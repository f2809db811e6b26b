package etcd_test

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/leasetest"
)

// TestAuth runs the auth suite on an embedded etcd of its own with RBAC
// limited to the adapter's prefix: clients without write rights (or
// without credentials) fail at once with backends.ErrPermission, and the
// holder keeps its key.
func TestAuth(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	h := &etcdtest.AuthHarness{Endpoints: []string{srv.Endpoint}}
	h.Setup(t)
	leasetest.RunAuthTests(t, h, lease.Options{TTL: 2 * time.Second})
}
