// Package env describes one store under test: its kind, its endpoints,
// client constructors for it, and a counter of the requests and watch
// notifications it serves.
package env

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/consul/api"
	"github.com/leasehold/leasehold/bench/internal/turn"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Kind names a store.
type Kind string

// The stores under test.
const (
	Etcd      Kind = "etcd"
	ZooKeeper Kind = "zookeeper"
	Consul    Kind = "consul"
)

// Store is one running store under test. It is safe for concurrent use.
type Store struct {
	// Kind is the store's kind.
	Kind Kind
	// Endpoints are the client addresses: etcd URLs, ZooKeeper and Consul
	// host:port pairs.
	Endpoints []string
	// Turn is the turn this store's scenarios take with the other stores
	// of the run (see turn.Lock); nil when the store has the machine to
	// itself.
	Turn *turn.Lock
	// consulReqs, consulWakes and consulRenews count the HTTP requests
	// sent by every Consul client made by ConsulClient, the blocking
	// queries among them that returned, and the session renewals.
	consulReqs, consulWakes, consulRenews atomic.Int64
	// mu guards transports, those of every Consul client made.
	mu         sync.Mutex
	transports []*http.Transport
}

// EtcdClient returns a new etcd client on the store.
func (s *Store) EtcdClient() (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{Endpoints: s.Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
}

// ConsulClient returns a new Consul client on the store whose requests are
// counted by Counts.
func (s *Store) ConsulClient() (*api.Client, error) {
	cfg := api.DefaultNonPooledConfig()
	cfg.Address = s.Endpoints[0]
	tr := cfg.Transport
	tr.MaxIdleConnsPerHost = 16384
	s.mu.Lock()
	s.transports = append(s.transports, tr)
	s.mu.Unlock()
	cfg.HttpClient = &http.Client{Transport: &countingTransport{base: tr, s: s}}
	return api.NewClient(cfg)
}

// CloseIdle closes the idle connections of every Consul client made by
// ConsulClient (a client has no Close: those of clients no longer used
// would stay open for 90 s). Connections in use stay.
func (s *Store) CloseIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, tr := range s.transports {
		tr.CloseIdleConnections()
	}
}

// countingTransport counts Consul requests and blocking-query returns.
type countingTransport struct {
	base http.RoundTripper
	s    *Store
}

// RoundTrip implements http.RoundTripper.
func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.s.consulReqs.Add(1)
	if strings.HasPrefix(r.URL.Path, "/v1/session/renew/") {
		c.s.consulRenews.Add(1)
	}
	resp, err := c.base.RoundTrip(r)
	if err == nil && strings.Contains(r.URL.RawQuery, "index=") && r.URL.Query().Get("index") != "" {
		c.s.consulWakes.Add(1)
	}
	return resp, err
}

// Via returns a store of the same kind reached at addr (host:port, e.g.
// a proxy in front of this store) instead of its endpoints. Its Consul
// counters are its own.
func (s *Store) Via(addr string) *Store {
	if s.Kind == Etcd {
		addr = "http://" + addr
	}
	return &Store{Kind: s.Kind, Endpoints: []string{addr}}
}

// Addr returns the first endpoint as host:port.
func (s *Store) Addr() string {
	ep := s.Endpoints[0]
	if _, rest, ok := strings.Cut(ep, "://"); ok {
		return rest
	}
	return ep
}
