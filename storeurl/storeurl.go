// Package storeurl opens a backends.Store from a URL, as the leasehold
// command does:
//
//	etcd://host:port[,host:port...]/prefix
//	zk://host:port[,host:port...]/prefix[?tick=2s]
//	consul://host:port/prefix
//
// The path is the key prefix (default: the adapter's). Credentials and TLS
// files come in Options, not in the URL, so that they stay out of process
// listings and logs. TLS is on, for every store, when any of Options.CACert,
// Cert and Key is set, or with the schemes etcds, zks and consuls (which
// verify the servers with the system's roots unless CACert is set).
//
// Open checks the addresses (a host, and a port in 1..65535) and makes a
// first contact with the store within Options.DialTimeout: an error then
// names the endpoint and the cause (refused, unreachable, a TLS failure),
// not a deadline. This package links all three adapters; an application
// that uses one store imports that adapter directly instead.
package storeurl

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Options hold what a URL does not.
type Options struct {
	// CACert, Cert and Key are PEM files for TLS: CACert verifies the
	// servers, Cert and Key authenticate the client. Setting any of them
	// turns TLS on.
	CACert, Cert, Key string
	// Username and Password authenticate to etcd.
	Username, Password string
	// Token is a Consul ACL token.
	Token string
	// ZKDigest is "user:password" for ZooKeeper digest authentication.
	ZKDigest string
	// DialTimeout bounds the first contact Open makes with the store. Default 5 s.
	DialTimeout time.Duration
}

// Opened is a Store with the client it was opened on. Store is the
// adapter itself (not a wrapper), so its optional interfaces
// (backends.GuardedWriter, backends.Queuer) are found by type assertion:
// pass Opened.Store to lease.New.
type Opened struct {
	Store backends.Store
	close func() error
}

// Close closes the client Open made.
func (o *Opened) Close() error { return o.close() }

// Open parses raw and connects to the store it names. Errors name the part
// of the URL or the option that is wrong.
func Open(ctx context.Context, raw string, opts Options) (*Opened, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("store URL %q: %w", raw, err)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("store URL %q: no host: want SCHEME://host:port[,host:port]/prefix", raw)
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 5 * time.Second
	}
	hosts := strings.Split(u.Host, ",")
	switch u.Scheme {
	case "etcd", "etcds":
		return openEtcd(ctx, hosts, u, opts)
	case "zk", "zookeeper", "zks":
		return openZooKeeper(hosts, u, opts)
	case "consul", "consuls":
		return openConsul(ctx, hosts, u, opts)
	}
	return nil, fmt.Errorf("store URL %q: unknown scheme %q: want etcd, zk or consul", raw, u.Scheme)
}

func (o Options) tls() bool { return o.CACert != "" || o.Cert != "" || o.Key != "" }
