package backendtest_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// minimalHarness is the whole harness an adapter needs to run the
// conformance suite: each Store dials the servers through a Link of its
// own, so that a suite can slow or cut that Store alone, and
// ExpireSession ends a session as its TTL would. NewStore's sever also
// closes the client, as a crash would: etcd's client would otherwise
// retry through the cut forever. This one is etcd's, on hosts (host:port).
type minimalHarness struct{ hosts []string }

func (h minimalHarness) Connect(t testing.TB) (*backends.Store, *backendtest.Link) {
	s, l, _ := h.connect(t)
	return s, l
}

func (h minimalHarness) NewStore(t testing.TB) (*backends.Store, func()) {
	s, l, c := h.connect(t)
	return s, func() { l.Sever(); c.Close() }
}

func (h minimalHarness) connect(t testing.TB) (*backends.Store, *backendtest.Link, *clientv3.Client) {
	l := backendtest.NewLink(t, h.hosts, backendtest.ProxyOptions{})
	c, err := dial(l.Addrs())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, l, c
}

func (h minimalHarness) ExpireSession(ctx context.Context, id string) error {
	lease, err := strconv.ParseInt(id, 16, 64)
	if err != nil {
		return err
	}
	c, err := dial(h.hosts)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Revoke(ctx, clientv3.LeaseID(lease))
	return err
}

func dial(hosts []string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{Endpoints: hosts, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
}

// TestMinimalHarness runs the conformance suite through minimalHarness on
// an embedded etcd: the harness the backends package doc shows is enough.
func TestMinimalHarness(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatalf("embedded etcd: %v", err)
	}
	t.Cleanup(srv.Close)
	backendtest.RunConformanceTests(t, minimalHarness{hosts: []string{strings.TrimPrefix(srv.Endpoint, "http://")}})
}
