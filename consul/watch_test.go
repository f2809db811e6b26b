package consul_test

import (
	"context"
	"net"
	"net/http"
	"sync"
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
func watch(t *testing.T, s consul.Driver) (backends.WatchSet, changes) {
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

	mu    sync.Mutex
	paths map[string]int // requests by URL path, if not nil
	sent  chan struct{}  // closed and replaced at each request
}

// awaitPath waits until n or more requests have been sent to the URL
// path p, and fails t if ctx ends first.
func (d *counter) awaitPath(t *testing.T, ctx context.Context, p string, n int) {
	t.Helper()
	for {
		d.mu.Lock()
		got := d.paths[p]
		if d.sent == nil {
			d.sent = make(chan struct{})
		}
		sent := d.sent
		d.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-sent:
		case <-ctx.Done():
			t.Fatalf("%d requests to %s, want %d or more", got, p, n)
		}
	}
}

// path returns the number of requests sent to the URL path p.
func (d *counter) path(p string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.paths[p]
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
		d.mu.Lock()
		if d.paths != nil {
			d.paths[r.URL.Path]++
		}
		if d.sent != nil {
			close(d.sent)
			d.sent = nil
		}
		d.mu.Unlock()
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
	ws.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: backends.Record{Election: el}})
	if c := ch.next(t); c.Record.Token != held.Token { // the view shows alice; no request pends
		t.Fatalf("answer %+v, want alice's token %d", c, held.Token)
	}
	if err := backendtest.Release(ctx, alice, el, held.Token); err != nil {
		t.Fatal(err)
	}
	absent, err := s.Get(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	ws.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: absent})
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
		set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: tag, Known: gone})
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
// election. (No key queries: see testWatchKeyed.)
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
		ws.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: r})
	}
	ws.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: n, Known: probe})
	if c := ch.next(t); c.Tag != n {
		t.Fatalf("answer %+v, want the probe's", c)
	}
	before := d.requests.Load()
	<-time.After(idle) // an idle spell of 3 WaitTimes
	if got := d.requests.Load() - before; got > 5 {
		t.Errorf("%d requests in %v idle with WaitTime 1s, want at most 5", got, idle)
	}
	other, och := watch(t, watcher) // shares the query
	other.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 0, Known: recs[0]})
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

// testWatchKeyed: while the Store has key queries to spare, a request is
// served by a query on its own key, which a write elsewhere under the
// prefix does not wake; the shared query, which serves the request beyond
// them, lists the prefix again after such writes. A key query whose
// request was answered is free for the next request.
func testWatchKeyed(t *testing.T, h *consultest.Harness) {
	opts := consul.Options{Prefix: "watch-keyed/", KeyQueries: 2}
	c := h.Client(t)
	ctx := backendtest.Context(t, 30*time.Second)
	ss := newSession(t, newStore(t, c, opts))
	recs := lockMany(t, c, opts.Prefix, ss.ID(), 3)
	d := counter{dialed: make(chan struct{}, 8), paths: make(map[string]int)}
	ws, ch := watch(t, newStore(t, d.client(t, h.Addr), opts))
	for i, r := range recs {
		ws.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: r})
	}
	for range 3 { // two key queries and the shared one block, each on a connection
		select {
		case <-d.dialed:
		case <-ctx.Done():
			t.Fatalf("%d connections opened, want 3", d.dials.Load())
		}
	}
	list, key0 := "/v1/kv/"+opts.Prefix, "/v1/kv/"+opts.Prefix+recs[0].Election
	before := d.path(list)
	for i := range 5 {
		p := &api.KVPair{Key: opts.Prefix + "~data/x", Value: []byte{byte(i)}}
		if _, err := c.KV().Put(p, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			t.Fatal(err)
		}
	}
	del := func(el string) {
		if _, err := c.KV().Delete(opts.Prefix+el, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			t.Fatal(err)
		}
	}
	d.awaitPath(t, ctx, list, before+1) // the writes woke the shared query
	del(recs[2].Election)
	if got := ch.next(t); got.Tag != 2 || got.Err != nil || got.Record.Exists() {
		t.Fatalf("answer %+v, want tag 2 with the key absent", got)
	}
	lists := d.path(list)
	for _, r := range recs[:2] {
		if got := d.path("/v1/kv/" + opts.Prefix + r.Election); got != 1 {
			t.Errorf("%d queries on the key of %s, want 1: writes elsewhere woke it", got, r.Election)
		}
	}
	del(recs[0].Election)
	c0 := ch.next(t)
	if c0.Tag != 0 || c0.Err != nil || c0.Record.Exists() {
		t.Fatalf("answer %+v, want tag 0 with the key absent", c0)
	}
	ws.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 3, Known: c0.Record}) // takes the key query tag 0 freed
	again := create(t, ss, recs[0].Election)
	if got := ch.next(t); got.Tag != 3 || got.Err != nil || got.Record.Token != again.Token {
		t.Fatalf("answer %+v, want tag 3 with the key at token %d", got, again.Token)
	}
	if got := d.path(key0); got < 2 {
		t.Errorf("%d queries on the key of %s, want 2 or more: the request after its answer did not take the freed key query", got, recs[0].Election)
	}
	if got := d.path(list); got != lists {
		t.Errorf("the prefix was listed %d times after the shared query's last request, want %d", got, lists)
	}
}
