package stores

import (
	"testing"

	"github.com/leasehold/leasehold/internal/containers"
)

// ZooKeeper starts a ZooKeeper ensemble of n servers (1 or 3) and returns
// their client addresses (127.0.0.1:port) once every server serves.
func ZooKeeper(t testing.TB, n int) []string {
	t.Helper()
	Require(t, ZooKeeperImage)
	addrs, err := containers.ZooKeeper(startContext(t), t, n, options(ZooKeeperImage))
	if err != nil {
		t.Fatal(err)
	}
	return addrs
}
