// Package etcdtest connects the conformance and elector suites to a running
// etcd. It dials the endpoints it is given; starting a server is the
// caller's business (an embedded one in unit tests, containers in
// integration tests).
package etcdtest

import (
	"context"
	"crypto/tls"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd"
)

// Harness is a backendtest.Harness on the etcd cluster at Endpoints.
type Harness struct {
	Endpoints []string
	// TLS, if set, is the clients' TLS configuration (Endpoints are then
	// https:// URLs). Default nil: plaintext.
	TLS *tls.Config

	once  sync.Once
	admin *clientv3.Client
	err   error
}

var _ backendtest.Harness = (*Harness)(nil)

// Dial returns a client of the cluster, closed when t ends.
func (h *Harness) Dial(t testing.TB) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(h.config())
	if err != nil {
		t.Fatalf("etcd client for %v: %v", h.Endpoints, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// config is the configuration of the harness's clients.
func (h *Harness) config() clientv3.Config {
	return clientv3.Config{Endpoints: h.Endpoints, TLS: h.TLS, DialTimeout: 5 * time.Second, Logger: zap.NewNop()}
}

// NewStore returns a Store on a client of its own; sever closes that client.
func (h *Harness) NewStore(t testing.TB) (backends.Store, func()) {
	c := h.Dial(t)
	s, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, func() { c.Close() }
}

// ExpireSession revokes the lease with the given ID through a separate
// client, which is what etcd does when a lease's TTL runs out.
func (h *Harness) ExpireSession(ctx context.Context, id string) error {
	lease, err := strconv.ParseInt(id, 16, 64)
	if err != nil {
		return fmt.Errorf("etcdtest: session id %q is not a lease id: %w", id, err)
	}
	h.once.Do(func() {
		h.admin, h.err = clientv3.New(h.config())
	})
	if h.err != nil {
		return h.err
	}
	_, err = h.admin.Revoke(ctx, clientv3.LeaseID(lease))
	return err
}

// ExpiryGrace is 500 ms: etcd's lessor looks for expired leases every
// 500 ms, so a silent lease's keys go up to that long after its TTL.
func (h *Harness) ExpiryGrace(time.Duration) time.Duration { return 500 * time.Millisecond }

// Close closes the harness's own client.
func (h *Harness) Close() {
	if h.admin != nil {
		h.admin.Close()
	}
}
