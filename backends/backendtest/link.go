package backendtest

import (
	"testing"

	"github.com/leasehold/leasehold/internal/harness"
)

// Link is one client's way to a store's servers: a Proxy per server. A
// harness's Store dials Addrs instead of the servers, so that Sever cuts
// that Store off alone.
type Link = harness.Link

// Proxy forwards TCP connections from a port of 127.0.0.1 to one address,
// so that a test can cut a client off the way a crash or a network cut
// would (see harness.Proxy).
type Proxy = harness.Proxy

// ProxyOptions configure a Proxy. The zero value forwards plain TCP.
type ProxyOptions = harness.ProxyOptions

// NewLink starts a Proxy to each of targets (host:port) with opts, closed
// when t ends.
func NewLink(t testing.TB, targets []string, opts ProxyOptions) *Link {
	t.Helper()
	return harness.NewLink(t, targets, opts)
}

// StartProxy starts a proxy to target (host:port) on a free port of
// 127.0.0.1.
func StartProxy(target string, opts ProxyOptions) (*Proxy, error) {
	return harness.StartProxy(target, opts)
}
