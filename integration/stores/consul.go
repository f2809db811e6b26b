package stores

import (
	"testing"

	"github.com/leasehold/leasehold/internal/containers"
)

// Consul starts a Consul cluster of n servers (1: a dev agent; 3: three
// servers bootstrapping together) and returns the HTTP addresses
// (127.0.0.1:port) of every server once the cluster has a leader and all
// its peers.
func Consul(t testing.TB, n int) []string {
	t.Helper()
	Require(t, ConsulImage)
	addrs, err := containers.Consul(startContext(t), t, n, options(ConsulImage))
	if err != nil {
		t.Fatal(err)
	}
	return addrs
}
