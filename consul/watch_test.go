package consul_test

import (
	"context"
	"errors"
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

// none fails t if an answer is waiting.
func (ch changes) none(t *testing.T) {
	t.Helper()
	select {
	case c := <-ch:
		t.Fatalf("unexpected answer %+v", c)
	default:
	}
}

// counter counts the connections a client opens and the requests it
// sends.
type counter struct{ dials, requests atomic.Int64 }

// client returns a client of addr that counts in d.
func (d *counter) client(t *testing.T, addr string) *api.Client {
	t.Helper()
	cfg := api.DefaultConfig()
	cfg.Address, cfg.Scheme = addr, "http"
	dial := (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	tr := cfg.Transport
	tr.DialContext = func(ctx context.Context, network, a string) (net.Conn, error) {
		d.dials.Add(1)
		return dial(ctx, network, a)
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

// testWatchAnswers: a request whose state already differs is answered at
// once, one whose state holds is answered on the change, and the answer
// carries the new state and the request's tag.
func testWatchAnswers(t *testing.T, h *consultest.Harness) {
	s := newStore(t, h.Client(t), consul.Options{})
	ss := newSession(t, s)
	el := backendtest.Election(t)
	absent, err := s.Get(backendtest.Context(t, 10*time.Second), el)
	if err != nil {
		t.Fatal(err)
	}
	held := create(t, ss, el)
	ws, ch := watch(t, s)
	ws.Wait(1, absent)
	if c := ch.next(t); c.Err != nil || c.Tag != 1 || c.Election != el || c.Record.Token != held.Token || string(c.Record.Value) != ss.ID() {
		t.Fatalf("answer %+v, want tag 1 with the key held at token %d", c, held.Token)
	}
	ws.Wait(2, held)
	if err := ss.Delete(backendtest.Context(t, 10*time.Second), el, held.Token); err != nil {
		t.Fatal(err)
	}
	if c := ch.next(t); c.Err != nil || c.Tag != 2 || c.Record.Exists() || c.Record.Revision <= held.Revision {
		t.Fatalf("answer %+v, want tag 2 with the key absent after revision %d", c, held.Revision)
	}
}

// testWatchReplaceAndStop: a new request for an election replaces the
// old, and a stopped request is not answered.
func testWatchReplaceAndStop(t *testing.T, h *consultest.Harness) {
	s := newStore(t, h.Client(t), consul.Options{})
	ss := newSession(t, s)
	a, b := backendtest.Election(t)+"-a", backendtest.Election(t)+"-b"
	ra, rb := create(t, ss, a), create(t, ss, b)
	ws, ch := watch(t, s)
	ws.Wait(1, ra)
	ws.Wait(2, ra)
	ws.Wait(3, rb)
	ws.Stop(b)
	ctx := backendtest.Context(t, 10*time.Second)
	if err := ss.Delete(ctx, b, rb.Token); err != nil {
		t.Fatal(err)
	}
	if err := ss.Delete(ctx, a, ra.Token); err != nil {
		t.Fatal(err)
	}
	// a's answer comes from a view that shows b's delete too.
	if c := ch.next(t); c.Tag != 2 || c.Election != a || c.Err != nil || c.Record.Exists() {
		t.Fatalf("answer %+v, want only tag 2 (a absent)", c)
	}
	ch.none(t)
}

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

// testWatchGone: WaitGone is answered at once for an entry already gone,
// and on the deletion of one that is not.
func testWatchGone(t *testing.T, h *consultest.Harness) {
	s := newStore(t, h.Client(t), consul.Options{})
	q := backends.Queuer(s)
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 10*time.Second)
	first, err := q.Enqueue(ctx, newSession(t, s), el)
	if err != nil {
		t.Fatal(err)
	}
	second, err := q.Enqueue(ctx, newSession(t, s), el)
	if err != nil {
		t.Fatal(err)
	}
	ws, ch := watch(t, s)
	ws.WaitGone(7, first)
	ch.none(t)
	if err := q.Dequeue(ctx, first); err != nil {
		t.Fatal(err)
	}
	if c := ch.next(t); c.Tag != 7 || c.Err != nil || c.Record.Token != first.Token || c.Record.Owner != first.Owner {
		t.Fatalf("answer %+v, want tag 7 for entry %+v", c, first)
	}
	ws.WaitGone(8, first)
	if c := ch.next(t); c.Tag != 8 || c.Err != nil {
		t.Fatalf("answer %+v, want tag 8 at once", c)
	}
	ws.WaitGone(9, second)
	ch.none(t)
}

// testWatchClose: Close ends a set whose query is in flight at once, and
// nothing is delivered after it returns; Close from deliver returns.
func testWatchClose(t *testing.T, h *consultest.Harness) {
	s := newStore(t, h.Client(t), consul.Options{})
	ss := newSession(t, s)
	el := backendtest.Election(t)
	rec := create(t, ss, el)
	var closed atomic.Bool
	late := make(chan backends.Change, 1)
	ws := s.Watch(func(c backends.Change) {
		if closed.Load() {
			late <- c
		}
	})
	ws.Wait(1, rec)
	done := make(chan struct{})
	go func() { _ = ws.Close(); closed.Store(true); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return within 5s with a query in flight")
	}
	ws.Wait(2, backends.Record{Election: el})
	if err := ss.Delete(backendtest.Context(t, 10*time.Second), el, rec.Token); err != nil {
		t.Fatal(err)
	}
	// A second set sees the delete: had the first delivered it, it would
	// have by now.
	other, ch := watch(t, s)
	other.Wait(3, rec)
	ch.next(t)
	select {
	case c := <-late:
		t.Fatalf("delivered %+v after Close", c)
	default:
	}
	var self backends.WatchSet
	ret := make(chan struct{})
	self = s.Watch(func(backends.Change) { _ = self.Close(); close(ret) })
	self.Wait(4, rec)
	select {
	case <-ret:
	case <-time.After(20 * time.Second):
		t.Fatal("Close from deliver did not return")
	}
}

// testWatchSevered: a broken query ends the pending requests with
// ErrUnavailable, and a request made after starts a new one.
func testWatchSevered(t *testing.T, h *consultest.Harness) {
	s, link := h.Connect(t)
	ss := newSession(t, s)
	el := backendtest.Election(t)
	rec := create(t, ss, el)
	ws, ch := s.(*consul.Store).Watch, make(changes, 16)
	set := ws(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })
	set.Wait(1, rec)
	set.Wait(2, backends.Record{Election: el + "-probe", Token: 1}) // answered from the first view
	if c := ch.next(t); c.Tag != 2 || c.Err != nil {
		t.Fatalf("answer %+v, want tag 2", c)
	}
	link.Sever()
	if c := ch.next(t); c.Tag != 1 || !errors.Is(c.Err, backends.ErrUnavailable) {
		t.Fatalf("answer %+v, want tag 1 ending with ErrUnavailable", c)
	}
	link.Heal()
	set.Wait(3, rec)
	if err := ss.Delete(backendtest.Context(t, 10*time.Second), el, rec.Token); err != nil {
		t.Fatal(err)
	}
	if c := ch.next(t); c.Tag != 3 || c.Err != nil || c.Record.Exists() {
		t.Fatalf("answer %+v, want tag 3 with the key absent", c)
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
