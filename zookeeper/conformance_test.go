package zookeeper_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/leaseholdtest"
	"github.com/leasehold/leasehold/zookeeper/zktest"
)

// harness returns a harness on the servers in LEASEHOLD_ZK_SERVERS
// (comma-separated "host:port") whose tickTime is LEASEHOLD_ZK_TICKTIME (a
// Go duration, default 2s). Without that variable it starts a one-server
// ensemble in a container through leaseholdtest.Container, which skips the
// test where Docker or the image is missing, or fails it when CI=true.
func harness(t testing.TB) *zktest.Harness {
	t.Helper()
	servers := os.Getenv("LEASEHOLD_ZK_SERVERS")
	if servers == "" {
		srv := leaseholdtest.Container(t, "zookeeper", leaseholdtest.ContainerOptions{})
		return &zktest.Harness{Servers: srv.Endpoints, TickTime: stores.ZooKeeperTick}
	}
	tick := 2 * time.Second
	if v := os.Getenv("LEASEHOLD_ZK_TICKTIME"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("LEASEHOLD_ZK_TICKTIME=%q: want a positive duration such as 200ms", v)
		}
		tick = d
	}
	return &zktest.Harness{Servers: strings.Split(servers, ","), TickTime: tick}
}

func TestConformance(t *testing.T) {
	backendtest.RunConformanceTests(t, harness(t))
}
