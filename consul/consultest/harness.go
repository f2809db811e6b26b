// Package consultest connects the conformance and elector suites to a
// running Consul agent. It talks to the HTTP address it is given; starting
// an agent is the caller's business (a dev agent in development, containers
// in integration tests).
package consultest

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/internal/harness"
)

// Harness is a backendtest.Harness on the Consul agent whose HTTP API is
// at Addr (host:port). Every Store it makes reaches the agent through a
// loopback proxy of its own (a harness.Link), which the sever function cuts. Its methods
// may be called from several tests at once.
type Harness struct {
	// Addr is the agent's HTTP address, host:port, on loopback.
	Addr string
	// TLS, if set, is the clients' TLS configuration: they speak HTTPS
	// to Addr. Default nil: HTTP.
	TLS *tls.Config

	once  sync.Once
	admin *api.Client
	err   error
}

// Client returns a client of the agent at Addr with a transport of its
// own, whose idle connections are closed when t ends.
func (h *Harness) Client(t testing.TB) *api.Client {
	t.Helper()
	return h.client(t, h.Addr)
}

func (h *Harness) client(t testing.TB, addr string) *api.Client {
	t.Helper()
	c, tr, err := newClient(addr, h.TLS)
	if err != nil {
		t.Fatalf("consul client for %s: %v", addr, err)
	}
	t.Cleanup(tr.CloseIdleConnections)
	return c
}

// NewStore returns a Store whose client reaches the agent through a Link
// of its own (see Connect); sever severs the Link.
func (h *Harness) NewStore(t testing.TB) (*backends.Store, func()) {
	t.Helper()
	s, l := h.Connect(t)
	return s, l.Sever
}

// Connect returns a Store whose client reaches the agent through a Link of
// its own, closed when t ends. Severing the Link cuts its connections and
// refuses new ones, as a crash would: the Store's calls fail and its
// sessions are left to expire by TTL, not destroyed. Healing it lets the
// Store's calls through again.
func (h *Harness) Connect(t testing.TB) (*backends.Store, *harness.Link) {
	t.Helper()
	l := harness.NewLink(t, []string{h.Addr}, harness.ProxyOptions{})
	s, err := consul.New(h.client(t, l.Addrs()[0]), consul.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, l
}

// ExpireSession destroys the session through a separate client, which is
// what Consul does when a session's TTL runs out: the keys it holds are
// deleted (the sessions' behavior) and their lock-delay armed.
func (h *Harness) ExpireSession(ctx context.Context, id string) error {
	h.once.Do(func() { h.admin, _, h.err = newClient(h.Addr, h.TLS) })
	if h.err != nil {
		return h.err
	}
	if _, err := h.admin.Session().Destroy(id, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
		return fmt.Errorf("consultest: destroy session %s: %w", id, err)
	}
	return nil
}

// ExpiryGrace is the TTL itself: Consul's leader invalidates a silent
// session 2×TTL after the last renewal it handled.
func (h *Harness) ExpiryGrace(ttl time.Duration) time.Duration { return ttl }

// newClient returns a client of addr with a transport of its own, over
// HTTPS with tc if it is not nil.
func newClient(addr string, tc *tls.Config) (*api.Client, *http.Transport, error) {
	cfg := api.DefaultConfig()
	cfg.Address = addr
	cfg.Scheme = "http"
	if tc != nil {
		cfg.Scheme, cfg.Transport.TLSClientConfig = "https", tc.Clone()
	}
	c, err := api.NewClient(cfg)
	return c, cfg.Transport, err
}
