package harness

import (
	"testing"
	"time"
)

// Link is one client's way to a store's servers: a Proxy per server. A
// harness's Store dials Addrs instead of the servers, so that Sever cuts
// that Store off alone.
type Link struct{ proxies []*Proxy }

// NewLink starts a Proxy to each of targets (host:port) with opts, closed
// when t ends.
func NewLink(t testing.TB, targets []string, opts ProxyOptions) *Link {
	t.Helper()
	l := &Link{}
	t.Cleanup(l.Close)
	for _, target := range targets {
		p, err := StartProxy(target, opts)
		if err != nil {
			t.Fatalf("harness: proxy to %s: %v", target, err)
		}
		l.proxies = append(l.proxies, p)
	}
	return l
}

// Addrs returns the proxies' addresses, in the order of the targets.
func (l *Link) Addrs() []string {
	out := make([]string, len(l.proxies))
	for i, p := range l.proxies {
		out[i] = p.Addr()
	}
	return out
}

// Sever severs every proxy of the link (see Proxy.Sever).
func (l *Link) Sever() {
	for _, p := range l.proxies {
		p.Sever()
	}
}

// Heal heals every proxy of the link (see Proxy.Heal).
func (l *Link) Heal() {
	for _, p := range l.proxies {
		p.Heal()
	}
}

// SetLatency sets the latency every proxy of the link adds to the
// servers' bytes on their way to the client (see Proxy.SetLatency).
func (l *Link) SetLatency(d time.Duration) {
	for _, p := range l.proxies {
		p.SetLatency(d)
	}
}

// Close closes every proxy of the link.
func (l *Link) Close() {
	for _, p := range l.proxies {
		p.Close()
	}
}
