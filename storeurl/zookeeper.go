package storeurl

import (
	"net/url"
	"strings"
	"time"

	"github.com/leasehold/leasehold/zookeeper"
)

func openZooKeeper(hosts []string, u *url.URL, opts Options) (*Opened, error) {
	if err := checkHosts("zk", hosts, true); err != nil {
		return nil, err
	}
	zo := zookeeper.Options{Prefix: strings.TrimSuffix(u.Path, "/"), Logger: opts.Logger}
	if useTLS(u.Scheme, opts) {
		tc, err := tlsConfig(opts)
		if err != nil {
			return nil, err
		}
		zo.TLS = tc
	}
	if v := u.Query().Get("tick"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, invalidf("zk URL: tick=%q: want the servers' tickTime as a duration above 0, e.g. tick=2s", v)
		}
		zo.TickTime = d
	}
	if opts.ZKDigest != "" {
		zo.Auth = []zookeeper.Auth{{Scheme: "digest", Credentials: []byte(opts.ZKDigest)}}
	}
	if err := zo.Validate(); err != nil {
		return nil, &invalidError{err} // the URL's path or tick
	}
	s, err := zookeeper.New(hosts, zo)
	if err != nil {
		return nil, err
	}
	if err := probeZooKeeper(hosts, zo.TLS, opts.DialTimeout); err != nil {
		_ = s.Close()
		return nil, err
	}
	return &Opened{Store: s, close: s.Close}, nil
}
