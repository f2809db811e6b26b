package stores

import (
	"testing"

	"github.com/leasehold/leasehold/internal/containers"
)

// Etcd starts an etcd cluster of n members (1 or 3) and returns the
// members' client endpoints once the cluster serves a linearizable read.
func Etcd(t testing.TB, n int) []string {
	t.Helper()
	return EtcdWith(t, n)
}

// EtcdWith is Etcd with args appended to each member's command line, such
// as "--auth-token-ttl=5".
func EtcdWith(t testing.TB, n int, args ...string) []string {
	t.Helper()
	Require(t, EtcdImage)
	o := options(EtcdImage)
	o.EtcdArgs = args
	eps, err := containers.Etcd(startContext(t), t, n, o)
	if err != nil {
		t.Fatal(err)
	}
	return eps
}
