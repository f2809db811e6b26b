package storeurl

import (
	"fmt"
	"net/url"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/consul"
)

func openConsul(hosts []string, u *url.URL, opts Options) (*Opened, error) {
	if len(hosts) != 1 {
		return nil, fmt.Errorf("consul URL: one agent address, got %d: clients talk to their local agent", len(hosts))
	}
	cfg := api.DefaultConfig()
	cfg.Address, cfg.Token = hosts[0], opts.Token
	if opts.tls() {
		cfg.Scheme = "https"
		cfg.TLSConfig = api.TLSConfig{CAFile: opts.CACert, CertFile: opts.Cert, KeyFile: opts.Key}
	}
	c, err := api.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("consul %s: %w", hosts[0], err)
	}
	s, err := consul.New(c, consul.Options{Prefix: prefix(u.Path, "", consul.DefaultPrefix),
		SessionNode: u.Query().Get("session-node")})
	if err != nil {
		return nil, err
	}
	return &Opened{Store: s, close: func() error { return nil }}, nil
}
