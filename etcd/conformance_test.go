package etcd_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/leasehold/leasehold/backends/backendtest"
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

func TestConformance(t *testing.T) {
	backendtest.RunConformanceTests(t, harness)
}
