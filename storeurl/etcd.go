package storeurl

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/etcd"
)

func openEtcd(ctx context.Context, hosts []string, u *url.URL, opts Options) (*Opened, error) {
	if err := checkHosts("etcd", hosts, false); err != nil {
		return nil, err
	}
	cfg := clientv3.Config{DialTimeout: opts.DialTimeout, Username: opts.Username,
		Password: opts.Password, Logger: zap.NewNop(), Context: ctx}
	scheme := "http://"
	if useTLS(u.Scheme, opts) {
		tc, err := tlsConfig(opts)
		if err != nil {
			return nil, err
		}
		cfg.TLS, scheme = tc, "https://"
	}
	for _, h := range hosts {
		cfg.Endpoints = append(cfg.Endpoints, scheme+h)
	}
	if cfg.Username != "" {
		if err := probeEtcdAnonymous(ctx, cfg, opts.DialTimeout); err != nil {
			return nil, err
		}
	}
	c, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcd %v: %w", cfg.Endpoints, err)
	}
	if err := probeEtcd(ctx, c, cfg.Endpoints, cfg.TLS != nil, opts.DialTimeout, false); err != nil {
		c.Close()
		return nil, err
	}
	s, err := etcd.New(c, etcd.Options{Prefix: prefix(u.Path, "/", etcd.DefaultPrefix)})
	if err != nil {
		c.Close()
		return nil, err
	}
	return &Opened{Store: s, close: c.Close}, nil
}

// probeEtcdAnonymous makes the first contact of a client with a user, by a
// client without it: clientv3.New with a user authenticates as it
// connects and reports a connection that failed (refused, TLS) only as
// its deadline, where a member's status names the failure at once (etcd
// refuses the status to a client without a user when auth is on: that
// refusal is an answer).
func probeEtcdAnonymous(ctx context.Context, cfg clientv3.Config, timeout time.Duration) error {
	cfg.Username, cfg.Password = "", ""
	c, err := clientv3.New(cfg)
	if err != nil {
		return fmt.Errorf("etcd %v: %w", cfg.Endpoints, err)
	}
	defer c.Close()
	return probeEtcd(ctx, c, cfg.Endpoints, cfg.TLS != nil, timeout, true)
}

// prefix turns a URL path into a key prefix that starts with lead and ends
// in "/"; an empty path gives def.
func prefix(path, lead, def string) string {
	if path == "" || path == "/" {
		return def
	}
	if path[len(path)-1] != '/' {
		path += "/"
	}
	if lead == "" {
		return path[1:]
	}
	return path
}

// tlsConfig reads the TLS files of opts. Its errors are ErrInvalid: a
// file that cannot be read or holds no certificate or key is the options' fault.
func tlsConfig(opts Options) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.CACert != "" {
		pem, err := os.ReadFile(opts.CACert)
		if err != nil {
			return nil, invalidf("--cacert: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, invalidf("--cacert %s: no PEM certificate in it", opts.CACert)
		}
	}
	if (opts.Cert == "") != (opts.Key == "") {
		return nil, invalidf("--cert and --key go together: got cert %q, key %q", opts.Cert, opts.Key)
	}
	if opts.Cert != "" {
		kp, err := tls.LoadX509KeyPair(opts.Cert, opts.Key)
		if err != nil {
			return nil, invalidf("--cert/--key: %w", err)
		}
		tc.Certificates = []tls.Certificate{kp}
	}
	return tc, nil
}
