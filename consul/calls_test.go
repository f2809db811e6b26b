package consul_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/lease"
)

// testCallsBounded: an elector campaigning for 200 elections at once
// has at most consul.MaxCalls election calls in flight, so that members
// sharing an agent stay within its connections per client (200). Blocking
// queries and session calls (create, renew, destroy) are not election
// calls.
func testCallsBounded(t *testing.T, h *consultest.Harness) {
	var in, most atomic.Int64
	cfg := api.DefaultConfig()
	cfg.Address, cfg.Scheme = h.Addr, "http"
	tr := cfg.Transport
	cfg.HttpClient = &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		if q := r.URL.Query(); q.Has("index") || q.Has("wait") || strings.HasPrefix(r.URL.Path, "/v1/session/") {
			return tr.RoundTrip(r)
		}
		n := in.Add(1)
		defer in.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		return tr.RoundTrip(r)
	})}
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.CloseIdleConnections)
	s, err := consul.New(c, consul.Options{Prefix: fmt.Sprintf("calls-%d/", time.Now().UnixNano())})
	if err != nil {
		t.Fatal(err)
	}
	e, err := lease.New(s, lease.Options{TTL: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	defer e.Close(ctx)
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Go(func() {
			if _, err := e.Campaign(ctx, fmt.Sprintf("e%d", i)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if m := most.Load(); m > consul.MaxCalls || m == 0 {
		t.Fatalf("%d election calls in flight at most, want 1 to %d", m, consul.MaxCalls)
	}
	t.Logf("200 campaigns: at most %d election calls in flight", most.Load())
}
