package consul_test

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
)

// Tests of the Store's WatchSet against a real agent.

// changes collects a WatchSet's answers.
type changes chan backends.Change

// watch starts a WatchSet on s whose answers go to the returned channel,
// closed when t ends.
func watch(t *testing.T, s *consul.Store) (backends.WatchSet, changes) {
	t.Helper()
	ch := make(changes, 2048)
	ws := s.Watch(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = ws.Close() })
	return ws, ch
}

// next returns the next answer, failing t if none comes within 20 s.
func (ch changes) next(t *testing.T) backends.Change {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(20 * time.Second):
		t.Fatal("no answer from the WatchSet within 20s")
	}
	return backends.Change{}
}

// counter counts the connections a client opens and the requests it
// sends. If dialed is not nil, each connection opened also sends on it.
type counter struct {
	dials, requests atomic.Int64
	dialed          chan struct{}
}

// client returns a client of addr that counts in d.
func (d *counter) client(t *testing.T, addr string) *api.Client {
	t.Helper()
	cfg := api.DefaultConfig()
	cfg.Address, cfg.Scheme = addr, "http"
	dial := (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	tr := cfg.Transport
	tr.DialContext = func(ctx context.Context, network, a string) (net.Conn, error) {
		d.dials.Add(1)
		conn, err := dial(ctx, network, a)
		if err == nil && d.dialed != nil {
			d.dialed <- struct{}{}
		}
		return conn, err
	}
	cfg.HttpClient = &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		d.requests.Add(1)
		return tr.RoundTrip(r)
	})}
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.CloseIdleConnections)
	return c
}

// roundTripper is an http.RoundTripper made of a function.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// testWatchStaleView: a request read after the set's last view is not
// answered from that view: it waits for the stream to reach its
// revision, and is answered with the next state.
func testWatchStaleView(t *testing.T, h *consultest.Harness) {
	s := newStore(t, h.Client(t), consul.Options{})
	alice, bob := newSession(t, s), newSession(t, s)
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 10*time.Second)
	held := create(t, alice, el)
	ws, ch := watch(t, s)
	ws.Wait(1, backends.Record{Election: el})
	if c := ch.next(t); c.Record.Token != held.Token { // the view shows alice; no request pends
		t.Fatalf("answer %+v, want alice's token %d", c, held.Token)
	}
	if err := alice.Delete(ctx, el, held.Token); err != nil {
		t.Fatal(err)
	}
	absent, err := s.Get(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	ws.Wait(2, absent)
	next := create(t, bob, el)
	if c := ch.next(t); c.Tag != 2 || c.Record.Token != next.Token || c.Record.Owner != bob.ID() {
		t.Fatalf("answer %+v, want bob's key at token %d, not the stale view", c, next.Token)
	}
}

// testWatchAfterLastClose: a set made after the Store's last one closed
// starts a query afresh.
func testWatchAfterLastClose(t *testing.T, h *consultest.Harness) {
	s := newStore(t, h.Client(t), consul.Options{})
	gone := backends.Record{Election: backendtest.Election(t), Token: 1} // answered by the first view
	for tag := range uint64(2) {
		set, ch := watch(t, s)
		set.Wait(tag, gone)
		if c := ch.next(t); c.Tag != tag || c.Err != nil || c.Record.Exists() {
			t.Fatalf("answer %+v, want tag %d with the key absent", c, tag)
		}
		if err := set.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// testWatchThousand: one set serves 1,000 held elections over one
// connection, and answers each on its release. While they wait and
// nothing changes, the set sends one query per WaitTime, not one per
// election.
func testWatchThousand(t *testing.T, h *consultest.Harness) {
	const n, idle = 1000, 3 * time.Second
	opts := consul.Options{Prefix: "watch-thousand/"}
	c := h.Client(t)
	ss := newSession(t, newStore(t, c, opts))
	recs := lockMany(t, c, opts.Prefix, ss.ID(), n+1)
	probe := recs[n]
	probe.Token, recs = 0, recs[:n]
	var d counter
	opts.WaitTime = time.Second
	watcher := newStore(t, d.client(t, h.Addr), opts)
	ws, ch := watch(t, watcher)
	for i, r := range recs {
		ws.Wait(uint64(i), r)
	}
	ws.Wait(n, probe)
	if c := ch.next(t); c.Tag != n {
		t.Fatalf("answer %+v, want the probe's", c)
	}
	before := d.requests.Load()
	<-time.After(idle) // an idle spell of 3 WaitTimes
	if got := d.requests.Load() - before; got > 5 {
		t.Errorf("%d requests in %v idle with WaitTime 1s, want at most 5", got, idle)
	}
	other, och := watch(t, watcher) // shares the query
	other.Wait(0, recs[0])
	if err := ss.Close(backendtest.Context(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	seen := make(map[uint64]bool)
	for len(seen) < n {
		c := ch.next(t)
		if c.Err != nil || c.Record.Exists() || seen[c.Tag] {
			t.Fatalf("answer %+v after %d answers, want each election once, absent", c, len(seen))
		}
		seen[c.Tag] = true
	}
	if c := och.next(t); c.Err != nil || c.Record.Exists() {
		t.Fatalf("second set's answer %+v, want the key absent", c)
	}
	if got := d.dials.Load(); got != 1 {
		t.Fatalf("the sets' client opened %d connections, want 1", got)
	}
}
