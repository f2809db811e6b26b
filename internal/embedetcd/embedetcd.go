// Package embedetcd starts an in-process, single-member etcd server on
// loopback for tests, examples and the demo. Library packages must not
// import it: it links the whole etcd server.
package embedetcd

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Server is a running embedded etcd.
type Server struct {
	etcd *embed.Etcd
	dir  string
	// Endpoint is the client URL, http://127.0.0.1:port.
	Endpoint string
}

// Start starts a fresh server in a new temporary directory and waits until
// it serves, at most 30 s. It listens on 127.0.0.1 only.
func Start() (*Server, error) { return StartWith(nil) }

// StartWith is Start with configure, if not nil, called on the server's
// configuration before it starts (say, to set AuthTokenTTL or a logger).
// It must leave the directory and the URLs as they are.
func StartWith(configure func(*embed.Config)) (*Server, error) {
	dir, err := os.MkdirTemp("", "leasehold-etcd-")
	if err != nil {
		return nil, err
	}
	cfg, err := config(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if configure != nil {
		configure(cfg)
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("embedetcd: start: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("embedetcd: start: %w", err)
	case <-time.After(30 * time.Second):
		e.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("embedetcd: not ready after 30s")
	}
	return &Server{etcd: e, dir: dir, Endpoint: "http://" + e.Clients[0].Addr().String()}, nil
}

func config(dir string) (*embed.Config, error) {
	peer, err := freeURL()
	if err != nil {
		return nil, err
	}
	client, _ := url.Parse("http://127.0.0.1:0")
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Name = "leasehold"
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	// A single member elects itself after one election timeout: 100 ms
	// instead of the default 1 s makes the server serve sooner. With no
	// peers, no heartbeat can be missed.
	cfg.TickMs, cfg.ElectionMs = 10, 100
	// bcrypt's cheapest cost: with auth on, every client login hashes the
	// password, which at the default cost takes seconds under -race.
	cfg.BcryptCost = 4
	return cfg, nil
}

// freeURL returns a loopback URL on a port that was free a moment ago.
func freeURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return url.Parse("http://" + l.Addr().String())
}

// Client returns a new client of the server. The caller closes it.
func (s *Server) Client() (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{Endpoints: []string{s.Endpoint},
		DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
}

// Close stops the server and removes its data.
func (s *Server) Close() {
	s.etcd.Close()
	os.RemoveAll(s.dir)
}
