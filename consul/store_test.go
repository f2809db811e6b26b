package consul_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
)

func TestNewRejects(t *testing.T) {
	c, err := api.NewClient(api.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := consul.New(nil, consul.Options{}); err == nil || !strings.Contains(err.Error(), "client") {
		t.Errorf("New(nil): %v, want an error naming the client", err)
	}
	cases := []struct {
		field string
		opts  consul.Options
	}{
		{"Prefix", consul.Options{Prefix: "leasehold"}},
		{"Prefix", consul.Options{Prefix: "/leasehold/"}},
		{"Prefix", consul.Options{Prefix: "/"}},
		{"Prefix", consul.Options{Prefix: "a//"}},
		{"Prefix", consul.Options{Prefix: "a/../"}},
		{"Prefix", consul.Options{Prefix: "a b/"}},
		{"LockDelay", consul.Options{LockDelay: -time.Millisecond}},
		{"LockDelay", consul.Options{LockDelay: 500 * time.Microsecond}},
		{"LockDelay", consul.Options{LockDelay: 1500 * time.Microsecond}},
		{"LockDelay", consul.Options{LockDelay: consul.MaxLockDelay + time.Millisecond}},
		{"WaitTime", consul.Options{WaitTime: 500 * time.Millisecond}},
		{"WaitTime", consul.Options{WaitTime: consul.MaxWaitTime + time.Second}},
		{"KeyQueries", consul.Options{KeyQueries: -1}},
		{"KeyQueries", consul.Options{KeyQueries: consul.MaxKeyQueries + 1}},
		{"SessionNode", consul.Options{SessionNode: "node.with.dots"}},
		{"SessionNode", consul.Options{SessionNode: strings.Repeat("n", 64)}},
	}
	for _, tc := range cases {
		if _, err := consul.New(c, tc.opts); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("New(%+v): %v, want an error naming %s", tc.opts, err, tc.field)
		}
	}
}

func TestNewAccepts(t *testing.T) {
	c, err := api.NewClient(api.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts consul.Options
		key  string
	}{
		{consul.Options{}, "leasehold/jobs/a"},
		{consul.Options{Prefix: "svc/elections/", LockDelay: consul.MaxLockDelay, WaitTime: time.Second}, "svc/elections/jobs/a"},
		{consul.Options{KeyQueries: consul.MaxKeyQueries}, "leasehold/jobs/a"},
	} {
		s, err := consul.New(c, tc.opts)
		if err != nil {
			t.Fatalf("New(%+v): %v", tc.opts, err)
		}
		if got := consul.KeyOf(consul.DriverOf(s), "jobs/a"); got != tc.key {
			t.Errorf("Key = %q, want %q", got, tc.key)
		}
	}
}

func TestLimits(t *testing.T) {
	c, err := api.NewClient(api.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(t, c, consul.Options{})
	caps := s.Capabilities()
	lim := caps.Limits
	if caps.Name != "consul" || lim.MinTTL != 10*time.Second || lim.MaxTTL != 24*time.Hour ||
		lim.TTLGranularity != 0 || lim.MaxValueSize <= 0 || lim.MaxValueSize > 384<<10 {
		t.Fatalf("Capabilities %+v", caps)
	}
}

// TestNewSessionRejectsTTL: a TTL Consul would refuse fails at once,
// without a request.
func TestNewSessionRejectsTTL(t *testing.T) {
	s, f := newFake(t, map[string]http.HandlerFunc{"PUT /v1/session/create": sessionCreated})
	for _, ttl := range []time.Duration{0, consul.MinTTL - time.Millisecond, consul.MaxTTL + time.Second} {
		if _, err := s.NewSession(backendtest.Context(t, 5*time.Second), ttl); err == nil || !strings.Contains(err.Error(), "TTL") {
			t.Errorf("NewSession(%v): %v, want an error naming the TTL", ttl, err)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Fatalf("%d requests, want none", n)
	}
}
