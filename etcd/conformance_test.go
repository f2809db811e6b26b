package etcd_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

var harness *etcdtest.Harness

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(serveChild())
	}
	srv, err := embedetcd.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "embedded etcd:", err)
		os.Exit(1)
	}
	harness = &etcdtest.Harness{Endpoints: []string{srv.Endpoint}}
	code := m.Run()
	harness.Close()
	srv.Close()
	os.Exit(code)
}

// newDriver returns the driver of a Store from harness.NewStore, and its
// sever.
func newDriver(t *testing.T) (etcd.Driver, func()) {
	s, sever := harness.NewStore(t)
	return etcd.DriverOf(s), sever
}

func TestConformance(t *testing.T) {
	backendtest.RunConformanceTests(t, harness)
}
