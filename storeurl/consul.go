package storeurl

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/url"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/consul"
)

func openConsul(ctx context.Context, hosts []string, u *url.URL, opts Options) (*Opened, error) {
	if len(hosts) != 1 {
		return nil, invalidf("consul URL: one agent address, got %d: clients talk to their local agent", len(hosts))
	}
	if err := checkHosts("consul", hosts, false); err != nil {
		return nil, err
	}
	cfg := api.DefaultConfig()
	cfg.Address, cfg.Token, cfg.Scheme = hosts[0], opts.Token, "http"
	var tc *tls.Config
	if useTLS(u.Scheme, opts) {
		var err error
		if tc, err = tlsConfig(opts); err != nil {
			return nil, err
		}
		cfg.Scheme, cfg.Transport.TLSClientConfig = "https", tc
	}
	c, err := api.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("consul %s: %w", hosts[0], err)
	}
	if err := probeConsul(ctx, c, cfg.Scheme+"://"+hosts[0], tc, opts.DialTimeout); err != nil {
		cfg.Transport.CloseIdleConnections()
		return nil, err
	}
	s, err := consul.New(c, consul.Options{Prefix: prefix(u.Path, "", consul.DefaultPrefix),
		SessionNode: u.Query().Get("session-node")})
	if err != nil {
		return nil, err
	}
	return &Opened{Store: s, close: func() error { return nil }}, nil
}
