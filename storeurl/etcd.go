package storeurl

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
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
	c, err := clientv3.New(cfg)
	if err != nil {
		return nil, etcdDialError(ctx, cfg, err, opts.DialTimeout)
	}
	if err := probeEtcd(ctx, c, cfg.Endpoints, cfg.TLS != nil, opts.DialTimeout); err != nil {
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

// etcdDialError is the error of a clientv3.New that failed with err.
// With a user, New authenticates at once and reports a connection that
// failed (refused, TLS) only as its deadline: a client without the user,
// probed for at most a second more, names the failure.
func etcdDialError(ctx context.Context, cfg clientv3.Config, err error, timeout time.Duration) error {
	if cfg.Username != "" && errors.Is(err, context.DeadlineExceeded) {
		cfg.Username, cfg.Password = "", ""
		if c, cerr := clientv3.New(cfg); cerr == nil {
			defer c.Close()
			pctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			if perr := probeEtcd(pctx, c, cfg.Endpoints, cfg.TLS != nil, timeout); perr != nil {
				return perr
			}
		}
	}
	return fmt.Errorf("etcd %v: %w", cfg.Endpoints, err)
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
