// Package consulclient makes a Consul api.Client that can reach every
// server of a cluster: api.Client talks to one address, so requests go to
// the current address and move on to the next one after a transport error
// or a 5xx answer (a server that lost its cluster leader answers 500). A
// failed request is not retried here: the caller sees its error, as it
// would from a single address, and its next request goes to the next
// server. Used by the fault suite's candidates and observer.
package consulclient

import (
	"net/http"
	"sync/atomic"

	"github.com/hashicorp/consul/api"
)

// New returns a client over addrs (host:port, HTTP), starting at
// addrs[first%len(addrs)].
func New(addrs []string, first int) (*api.Client, error) {
	cfg := api.DefaultConfig()
	cfg.Address, cfg.Scheme = addrs[first%len(addrs)], "http"
	f := &failover{addrs: addrs, base: cfg.Transport}
	f.cur.Store(int64(first))
	cfg.HttpClient = &http.Client{Transport: f}
	return api.NewClient(cfg)
}

type failover struct {
	addrs []string
	cur   atomic.Int64
	base  http.RoundTripper
}

func (f *failover) RoundTrip(req *http.Request) (*http.Response, error) {
	i := f.cur.Load()
	r := req.Clone(req.Context())
	r.URL.Host = f.addrs[int(i)%len(f.addrs)]
	r.Host = ""
	resp, err := f.base.RoundTrip(r)
	if err != nil || resp.StatusCode >= 500 {
		f.cur.CompareAndSwap(i, i+1) // once per failure, however many requests saw it
	}
	return resp, err
}
