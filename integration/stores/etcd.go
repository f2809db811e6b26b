package stores

import (
	"testing"

	"github.com/leasehold/leasehold/internal/containers"
)

// Etcd starts an etcd cluster of n members (1 or 3) and returns the
// members' client endpoints once the cluster serves a linearizable read.
func Etcd(t testing.TB, n int) []string {
	t.Helper()
	Require(t, EtcdImage)
	eps, err := containers.Etcd(startContext(t), t, n, options(EtcdImage))
	if err != nil {
		t.Fatal(err)
	}
	return eps
}
