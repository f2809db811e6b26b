package leaseholdtest

import (
	"testing"

	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// Etcd starts a single-member etcd server inside the test's process, on a
// free port of 127.0.0.1 with its data in a temporary directory, and
// returns it serving. It needs neither Docker nor an etcd binary. The
// server stops and its data goes when t ends. The smallest TTL it grants
// is 2 s.
func Etcd(t testing.TB) *Server {
	t.Helper()
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatalf("leaseholdtest: %v", err)
	}
	t.Cleanup(srv.Close)
	h := &etcdtest.Harness{Endpoints: []string{srv.Endpoint}}
	t.Cleanup(h.Close)
	return newServer(t, "etcd", h.Endpoints, h)
}
