package integration

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/integration/faults/consulclient"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/internal/driver"
)

// TestConsulWatchThroughIsolatedServer: a WatchSet whose shared query
// blocks on a server that is then cut off from its peers hears of a
// change the others commit meanwhile, without waiting for the cut to
// heal and the server to catch up (which took 26.8 s after a 15 s cut of
// the server that led, before the Store sent its queries again on a
// failed request: see consul's queries). The waiter's client starts on
// that server and moves to another (as consulclient, or a Consul agent,
// does) once a request of its own fails there; the holder talks to
// another server and releases the key while the server is cut off, as a
// session given up during an outage is destroyed.
func TestConsulWatchThroughIsolatedServer(t *testing.T) {
	stores.RequireIsolation(t)
	for _, tc := range []struct {
		name       string
		leader     bool
		keyQueries int // 0: the shared query; 2: the request's own
	}{{"follower", false, 0}, {"leader", true, 0}, {"leader-key-query", true, 2}} {
		t.Run(tc.name, func(t *testing.T) { watchThroughIsolated(t, tc.leader, tc.keyQueries) })
	}
}

func watchThroughIsolated(t *testing.T, leader bool, keyQueries int) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cl := stores.ConsulCluster(t, 3)
	if err := cl.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	lead, err := cl.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, h := (lead+1)%len(cl.Nodes), lead
	if leader {
		f, h = lead, (lead+1)%len(cl.Nodes)
	}
	holder := consulStoreAt(t, []string{cl.Nodes[h].Addr}, 0, 0)
	waiter := consulStoreAt(t, cl.Addrs(), f, keyQueries)

	hs, err := driver.Of(holder).NewSession(ctx, consul.MinTTL)
	if err != nil {
		t.Fatal(err)
	}
	el := "isolate-watch"
	rec, err := hs.Create(ctx, el, []byte("holder"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := driver.Of(waiter).NewSession(ctx, consul.MinTTL)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan backends.Change, 4)
	set := driver.Of(waiter).Watch(func(c backends.Change) { ch <- c })
	defer set.Close()

	// A first answer, to a proclaim, shows the shared query running; the
	// second request then waits in the query that blocks on the server.
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: rec})
	if rec, err = hs.Proclaim(ctx, el, rec.Token, []byte("holder 2")); err != nil {
		t.Fatal(err)
	}
	first := backendtest.AwaitChange(t, ch, 20*time.Second)
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: first.Record})

	if err := cl.IsolatePeers(ctx, f); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cl.HealPeers(context.Background(), f); err != nil {
			t.Error(err)
		}
	}()
	// The waiter renews its session, as its elector would, until a
	// renewal fails on the cut-off server (a leader cut off answers for a
	// few seconds, until it steps down): its client moves on.
	renewFails(t, ctx, ws, 15*time.Second)
	for {
		_, err := hs.End(ctx, backends.End{Election: el, Token: rec.Token})
		if err == nil || errors.Is(err, backends.ErrNotFound) { // a retry of a release made
			break
		}
		t.Logf("release: %v", err) // the cluster electing a leader
		select {
		case <-ctx.Done():
			t.Fatal(err)
		case <-time.After(500 * time.Millisecond): // a retry's pause
		}
	}
	released := time.Now()
	c := backendtest.AwaitChange(t, ch, 5*time.Second)
	t.Logf("answered %v after the release, the server still cut off: %+v", time.Since(released).Round(time.Millisecond), c)
	if c.Record.Owner != "" {
		t.Fatalf("the answer is not the key released: %+v", c)
	}
}

// renewFails renews s every second until a renewal fails, for at most d.
func renewFails(t *testing.T, ctx context.Context, s backends.Session, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := s.KeepAlive(rctx)
		cancel()
		if err != nil {
			t.Logf("renewal through the cut-off server: %v", err)
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second): // the next renewal
		}
	}
	t.Fatalf("every renewal through the cut-off server succeeded for %v", d)
}

// consulStoreAt returns a Store whose client starts on addrs[first] and
// moves on after a failed request, with Options.KeyQueries keyQueries.
func consulStoreAt(t *testing.T, addrs []string, first, keyQueries int) *backends.Store {
	t.Helper()
	cli, err := consulclient.New(addrs, first)
	if err != nil {
		t.Fatal(err)
	}
	s, err := consul.New(cli, consul.Options{KeyQueries: keyQueries})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
