package etcd_test

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// tokenTTL is the auth token lifetime of the servers below, in seconds
// (etcd's simple tokens: dropped when unused that long, checked once a
// second).
const tokenTTL = 2

// TestAuthTokenExpiry runs etcdtest.TokenExpiry on an embedded etcd whose
// auth tokens live tokenTTL: a candidate that waits four token lifetimes
// is promoted, and a leader that leads as long keeps renewing, writing,
// watching and resigns (etcd issue 17623, jetcd issue 1336). The server's
// own log shows the waiter's tokens dropped during the wait.
func TestAuthTokenExpiry(t *testing.T) {
	srv, log := startShortTokens(t)
	x := &etcdtest.TokenExpiry{Endpoints: []string{srv.Endpoint}, TokenTTL: tokenTTL * time.Second, Lifetimes: 4, Resolution: time.Second}
	f := x.Run(t)
	got, dropped := log.tokens(etcdtest.WaiterUser)
	holder, _ := log.tokens("holder")
	t.Logf("token TTL %ds; waited %v, led %v (%.1f lifetimes); tokens given to the waiter's user %d (the leader's %d), "+
		"the waiter's dropped as lapsed %d; refusals as invalid: %d server-side, %d retried by clientv3, %d reached the electors",
		tokenTTL, f.Waited.Round(time.Millisecond), f.Led.Round(time.Millisecond), f.Led.Seconds()/tokenTTL,
		got, holder, dropped, log.refusals(), f.InvalidRetried, f.InvalidSeen)
	if dropped == 0 {
		t.Fatal("the server dropped no token of the waiter's user during the wait")
	}
}

// TestWatchAfterTokenLapse: a WatchSet whose stream outlives its auth
// token (etcd then refuses every new watch on that stream) does not stop
// another: a set opens its stream on a stream of its own, with a fresh
// token, and sees the change of its key.
func TestWatchAfterTokenLapse(t *testing.T) {
	srv, log := startShortTokens(t)
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.Endpoint}, DialTimeout: 5 * time.Second,
		Username: "holder", Password: etcdtest.Password("holder"), Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	st, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := etcd.DriverOf(st)
	ctx := backendtest.Context(t, time.Minute)
	lasting := backendtest.Election(t)
	waitLasting(t, s, lasting)
	// The login and the lasting set's stream each took a token; once both
	// lapsed, the stream carries a token etcd no longer knows.
	log.await(t, 4*tokenTTL*time.Second, func() bool { got, dropped := log.tokens("holder"); return got >= 2 && dropped == got })
	el := lasting + "-next"
	known, err := s.Get(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	next := make(chan backends.Change, 1)
	set := s.Watch(func(c backends.Change) { next <- c })
	t.Cleanup(func() { _ = set.Close() })
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
	ss, err := s.NewSession(ctx, etcd.MinTTL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close(context.Background()) })
	if _, err := ss.Create(ctx, el, []byte("new")); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-next:
		if c.Err != nil || !c.Record.Exists() {
			t.Fatalf("the second set's answer: %+v; want the key's creation", c)
		}
	case <-ctx.Done():
		t.Fatal("the second set did not answer within a minute")
	}
}

// waitLasting makes a WatchKey request on el's leader key, in a set of
// its own, that lasts until the test ends.
func waitLasting(t *testing.T, s etcd.Driver, el string) {
	known, err := s.Get(backendtest.Context(t, 10*time.Second), el)
	if err != nil {
		t.Fatal(err)
	}
	set := s.Watch(func(backends.Change) {})
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
	t.Cleanup(func() { _ = set.Close() })
}

// startShortTokens starts an embedded etcd whose auth tokens live
// tokenTTL, with the users of etcdtest.AuthHarness, and its log.
func startShortTokens(t *testing.T) (*embedetcd.Server, *serverLog) {
	log := &serverLog{got: map[string]int{}, dropped: map[string]int{}, changed: make(chan struct{}, 1)}
	srv, err := embedetcd.StartWith(func(cfg *embed.Config) {
		cfg.AuthTokenTTL = tokenTTL
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.New(log))
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	h := &etcdtest.AuthHarness{Endpoints: []string{srv.Endpoint}}
	h.Setup(t)
	return srv, log
}
