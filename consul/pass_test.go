package consul_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/lease"
)

// testHandOverPasses: package lease's handovers on Consul pass the key in
// one transaction rather than delete it: the key's CreateIndex never
// changes while its session, LockIndex and token do. Both paths are
// taken: to a target behind another waiter in line, which wakes there,
// and to the head of the line. The waiter passed
// over still waits. The waiters' WatchSets serve them with queries on
// their keys, and then with the shared query alone.
func testHandOverPasses(t *testing.T, h *consultest.Harness) {
	t.Run("KeyQueries", func(t *testing.T) { handOverPasses(t, h, consul.Options{KeyQueries: 2}) })
	t.Run("SharedQuery", func(t *testing.T) { handOverPasses(t, h, consul.Options{}) })
}

func handOverPasses(t *testing.T, h *consultest.Harness, opts consul.Options) {
	c := h.Client(t)
	s := newStore(t, c, opts)
	el := backendtest.Election(t)
	key := consul.KeyOf(s, el)
	ctx := backendtest.Context(t, 60*time.Second)
	elector := func(id string) *lease.LeaseElector {
		e, err := lease.New(backends.NewStore(s), lease.Options{TTL: consul.MinTTL, Identity: id})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(context.Background()) })
		return e
	}
	a, b, d := elector("a"), elector("b"), elector("d")
	la, err := a.Campaign(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	wins := map[string]chan *lease.Leadership{}
	for id, e := range map[string]*lease.LeaseElector{"b": b, "d": d} {
		wins[id] = make(chan *lease.Leadership, 1)
		go func() {
			l, err := e.Campaign(ctx, el)
			if err != nil {
				t.Errorf("Campaign %s: %v", id, err)
			}
			wins[id] <- l
		}()
		awaitInLine(t, s, c, a, el, id)
	}
	before := kvPair(t, c, key)
	next := la
	for _, to := range []string{"d", "b"} { // d is behind b; then b heads the line
		if err := next.HandOver(ctx, to); err != nil {
			t.Fatalf("HandOver(%q): %v", to, err)
		}
		var l *lease.Leadership
		select {
		case l = <-wins[to]:
		case <-ctx.Done():
			t.Fatalf("%s did not lead after the handover to it", to)
		}
		p := kvPair(t, c, key)
		if l == nil || l.Identity != to || l.Token <= next.Token || p.Session != l.Session ||
			p.CreateIndex != before.CreateIndex || p.LockIndex <= before.LockIndex {
			t.Fatalf("after the handover to %s: leadership %+v after token %d, key %+v; want the key passed (CreateIndex %d kept, LockIndex above %d)",
				to, l, next.Token, p, before.CreateIndex, before.LockIndex)
		}
		next, before = l, p
	}
}

// awaitInLine waits until the candidate id, as e lists it, has its entry
// in el's queue: it follows the candidate list until id is in it, and
// then its queue entry's key with blocking queries. It returns id's
// session.
func awaitInLine(t *testing.T, s consul.Driver, c *api.Client, e *lease.LeaseElector, el, id string) (session string) {
	t.Helper()
	ctx := backendtest.Context(t, 20*time.Second)
	ch, err := e.ObserveCandidates(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	for cs := range ch {
		for _, c := range cs {
			if c.Identity == id {
				session = c.Session
			}
		}
		if session != "" {
			break
		}
	}
	key := consul.QueueKeyOf(s, el, session)
	for index := uint64(0); ctx.Err() == nil; {
		p, meta, err := c.KV().Get(key, (&api.QueryOptions{WaitIndex: index}).WithContext(ctx))
		switch {
		case err == nil && p != nil:
			return session
		case err == nil:
			index = meta.LastIndex
		}
	}
	t.Fatalf("%s (session %q) not in line within 20s", id, session)
	return ""
}

func kvPair(t *testing.T, c *api.Client, key string) *api.KVPair {
	t.Helper()
	p, _, err := c.KV().Get(key, &api.QueryOptions{RequireConsistent: true})
	if err != nil || p == nil {
		t.Fatalf("read %s: %+v, %v", key, p, err)
	}
	return p
}

// testPassToEndedCampaign: a key passed to a candidate whose campaign
// then ends before it noticed (it waited behind another entry, so it
// watched that entry, not the key) is deleted by its elector once its
// record has left the roster, and the next in line leads. Without that
// delete the key would stay bound to the live session of a candidate
// that no longer campaigns. "behind" reaches the agent through a Link
// whose answers lag by a second once it is in line, so that the
// campaign ends before its watch can tell it of the pass: without the
// lag its shared query may answer before the test cancels, and it wins.
func testPassToEndedCampaign(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	s := newStore(t, c, consul.Options{})
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 60*time.Second)
	logs := &logCount{want: "deleting a key bound to this session with no campaign for it"}
	elector := func(s *backends.Store, id string) *lease.LeaseElector {
		e, err := lease.New(s, lease.Options{TTL: consul.MinTTL, Identity: id, Logger: slog.New(logs)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(context.Background()) })
		return e
	}
	slow, link := h.Connect(t)
	leader, err := s.NewSession(ctx, consul.MinTTL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = leader.Close(context.Background()) })
	held, err := leader.Create(ctx, el, []byte("raw"))
	if err != nil {
		t.Fatal(err)
	}
	head, behind := elector(backends.NewStore(s), "head"), elector(slow, "behind")
	headWon := make(chan *lease.Leadership, 1)
	go func() {
		l, err := head.Campaign(ctx, el)
		if err != nil {
			t.Errorf("Campaign head: %v", err)
		}
		headWon <- l
	}()
	awaitInLine(t, s, c, head, el, "head")
	bctx, cancel := context.WithCancel(ctx)
	behindDone := make(chan error, 1)
	go func() {
		_, err := behind.Campaign(bctx, el)
		behindDone <- err
	}()
	to := awaitInLine(t, s, c, head, el, "behind")
	link.SetLatency(time.Second)
	if _, err := leader.End(ctx, backends.End{Election: el, Token: held.Token, To: &backends.Target{Session: to, Value: []byte("passed")}}); err != nil {
		t.Fatalf("Pass to %s: %v", to, err)
	}
	cancel()
	if err := <-behindDone; err == nil {
		t.Fatal("the cancelled campaign won")
	}
	select {
	case l := <-headWon:
		if l == nil || uint64(l.Token) <= held.Token {
			t.Fatalf("head led with %+v, want a token above %d", l, held.Token)
		}
	case <-ctx.Done():
		t.Fatalf("the key passed to the ended campaign was not let go: key %+v", kvPair(t, c, consul.KeyOf(s, el)))
	}
	if logs.n.Load() != 1 {
		t.Errorf("%d logs %q, want 1", logs.n.Load(), logs.want)
	}
}

// logCount is a slog.Handler that counts the records whose message is
// want.
type logCount struct {
	want string
	n    atomic.Int32
}

func (l *logCount) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCount) Handle(_ context.Context, r slog.Record) error {
	if r.Message == l.want {
		l.n.Add(1)
	}
	return nil
}
func (l *logCount) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCount) WithGroup(string) slog.Handler      { return l }
