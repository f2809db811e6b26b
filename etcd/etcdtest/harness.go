// Package etcdtest connects the conformance and elector suites to a running
// etcd. It dials the endpoints it is given; starting a server is the
// caller's business (an embedded one in unit tests, containers in
// integration tests).
package etcdtest

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/harness"
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
func (h *Harness) NewStore(t testing.TB) (*backends.Store, func()) {
	c := h.Dial(t)
	s, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, func() { c.Close() }
}

// Connect returns a Store on a client of its own that reaches the cluster
// through a Link of its own, closed when t ends. Severing the Link cuts the
// client's connections and refuses new ones, as a network cut would: the
// Store's calls fail and its leases are left to expire by TTL, not
// revoked. Healing it lets the client reconnect, within 1 s.
func (h *Harness) Connect(t testing.TB) (*backends.Store, *harness.Link) {
	t.Helper()
	var hosts []string
	for _, ep := range h.Endpoints {
		u, err := url.Parse(ep)
		if err != nil || u.Host == "" {
			t.Fatalf("etcdtest: endpoint %q is not a URL: %v", ep, err)
		}
		hosts = append(hosts, u.Host)
	}
	l := harness.NewLink(t, hosts, harness.ProxyOptions{})
	cfg := h.config()
	cfg.Endpoints = nil
	for i, a := range l.Addrs() {
		cfg.Endpoints = append(cfg.Endpoints, strings.Replace(h.Endpoints[i], hosts[i], a, 1))
	}
	cfg.DialOptions = []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
		Backoff: backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, MaxDelay: time.Second}})}
	c, err := clientv3.New(cfg)
	if err != nil {
		t.Fatalf("etcd client for %v: %v", cfg.Endpoints, err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, l
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
