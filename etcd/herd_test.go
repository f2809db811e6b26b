package etcd_test

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/keys"
	"github.com/leasehold/leasehold/lease"
)

// The herd: herdN candidates (a leader and herdN−1 waiters) on one
// election, and herdReleases resigns, each handing the election over.
const herdN, herdReleases = 10, 3

// TestElectorHerdFree: in the default configuration a release wakes one
// waiter. The electors' etcd clients count the writes that make a
// candidate leader, creates of the leader key (a transaction comparing its
// create revision with 0) and passes of it (one comparing its lease): with
// herdN−1 waiting, each release costs exactly one, the successor's create
// or the leader's pass, and nothing follows. Whether a resign passes
// depends on whether the new leader's roster, read when it won, has landed
// before it resigns, so the count takes either. In key mode every waiter
// tries to create the key on each release; subtest KeyModeWakesAll shows
// that the count sees that, on a store that passes no key, so that each
// release is a delete.
func TestElectorHerdFree(t *testing.T) {
	base := lease.Options{TTL: 2 * time.Second}
	t.Run("Default", func(t *testing.T) {
		takes := herd(t, herdN, base, false, nil)
		want := int64(herdN + herdReleases)
		awaitCreates(t, takes, want, 10*time.Second, "the successors' creates and passes")
		if n, more := awaitCount(takes, want+1, time.Second); more {
			t.Fatalf("%d releases among %d waiters sent %d creates or passes of the leader key or more, want %d: more than one waiter woke",
				herdReleases, herdN-1, n-herdN, herdReleases)
		}
	})
	t.Run("KeyModeWakesAll", func(t *testing.T) {
		key := base
		key.Wait = lease.WaitKey
		takes := herd(t, herdN, key, true, nil)
		awaitCreates(t, takes, herdN+herdReleases+1, 10*time.Second, "the herd's creates in key mode")
	})
}

// TestHerdNotifications: in queue mode (the default) a hand-over costs
// the herd's watches a few events, however many wait: each waiter watches
// the entry ahead of its own, and the head the key, not the prefix. With
// a watch of the prefix per elector it cost about 4 per waiter.
func TestHerdNotifications(t *testing.T) {
	const most = 8
	for _, n := range []int{5, 40} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			events := new(atomic.Int64)
			herd(t, n, lease.Options{TTL: 5 * time.Second}, false, events)
			per := float64(events.Load()) / herdReleases
			t.Logf("%d candidates: %d watch events over %d hand-overs, %.1f per hand-over", n, events.Load(), herdReleases, per)
			if per > most {
				t.Errorf("%d candidates: %.1f watch events per hand-over, want at most %d", n, per, most)
			}
		})
	}
}

// herd starts n electors with opts, lets the first lead and the others
// wait (each has had its first create answered), and hands the election over
// herdReleases times, each to one waiter with a greater token. It returns
// the count of creates and passes of the leader key the electors sent.
// With noPass their stores pass no key. If events is not nil, it counts
// the watch events the electors' clients receive during the hand-overs,
// from a quiet herd to a quiet herd (settle).
func herd(t *testing.T, n int, opts lease.Options, noPass bool, events *atomic.Int64) *atomic.Int64 {
	t.Helper()
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 60*time.Second)
	takes, received := new(atomic.Int64), new(atomic.Int64)
	es := make([]*lease.LeaseElector, n)
	for i := range es {
		opts.Identity = fmt.Sprintf("herd-%d", i)
		store := countingStore(t, keys.Leader(etcd.DefaultPrefix, el), takes, received)
		if noPass {
			store = passless(store)
		}
		e, err := lease.New(store, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(context.Background()) })
		es[i] = e
	}
	l, err := es[0].Campaign(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	wins := make(chan *lease.Leadership, herdN)
	for _, e := range es[1:] {
		go func() {
			if w, err := e.Campaign(ctx, el); err == nil {
				wins <- w
			}
		}()
	}
	awaitCreates(t, takes, int64(n), 10*time.Second, "the waiters' first creates")
	from := settle(t, received)
	for range herdReleases {
		if err := l.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		next := awaitWin(t, wins)
		if next.Token <= l.Token {
			t.Fatalf("token %d after %d", next.Token, l.Token)
		}
		l = next
	}
	if events != nil {
		events.Store(settle(t, received) - from)
	}
	return takes
}

// settle waits until no watch event has come for quiet, and returns the
// count then.
func settle(t *testing.T, received *atomic.Int64) int64 {
	t.Helper()
	const quiet = 300 * time.Millisecond
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	last, since, deadline := received.Load(), time.Now(), time.Now().Add(30*time.Second)
	for now := range tick.C {
		switch n := received.Load(); {
		case n != last:
			last, since = n, now
		case now.Sub(since) >= quiet:
			return n
		case now.After(deadline):
			t.Fatalf("watch events still coming 30s on: %d", n)
		}
	}
	return last
}

// countWatch is a gRPC stream interceptor that adds to events the events
// of each watch response its client receives, and to creates each watch
// create it sends; either may be nil.
func countWatch(events, creates *atomic.Int64) grpc.StreamClientInterceptor {
	return watchTap(func(_ int64, r *pb.WatchRequest) {
		if creates != nil && r.GetCreateRequest() != nil {
			creates.Add(1)
		}
	}, func(_ int64, r *pb.WatchResponse) {
		if events != nil {
			events.Add(int64(len(r.Events)))
		}
	})
}

// watchTap is a gRPC stream interceptor that calls sent with each watch
// request its client sends and got with each watch response it
// receives, each with its stream's number (1 for the first opened).
func watchTap(sent func(stream int64, r *pb.WatchRequest), got func(stream int64, r *pb.WatchResponse)) grpc.StreamClientInterceptor {
	var streams atomic.Int64
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		cs, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, err
		}
		return tapped{cs, streams.Add(1), sent, got}, nil
	}
}

// tapped is one stream of watchTap.
type tapped struct {
	grpc.ClientStream
	n    int64
	sent func(int64, *pb.WatchRequest)
	got  func(int64, *pb.WatchResponse)
}

func (c tapped) RecvMsg(m any) error {
	err := c.ClientStream.RecvMsg(m)
	if resp, ok := m.(*pb.WatchResponse); ok && err == nil {
		c.got(c.n, resp)
	}
	return err
}

func (c tapped) SendMsg(m any) error {
	if req, ok := m.(*pb.WatchRequest); ok {
		c.sent(c.n, req)
	}
	return c.ClientStream.SendMsg(m)
}

// countingStore returns a Store on a client of its own, closed when t
// ends, that adds one to takes for each create or pass of key it sent,
// once the store answered it, and to received the events of each watch
// response it receives.
func countingStore(t *testing.T, key string, takes, received *atomic.Int64) *backends.Store {
	t.Helper()
	count := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoke(ctx, method, req, reply, cc, opts...)
		if txn, ok := req.(*pb.TxnRequest); ok && takesKey(txn, key) {
			takes.Add(1) // once answered: the store has decided it
		}
		return err
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: harness.Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(count), grpc.WithChainStreamInterceptor(countWatch(received, nil))}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// takesKey reports whether txn is a create of key, which asks that key's
// create revision equal 0 (a guard of the key asks that it exceed 0), or
// a pass of it, which asks for its lease and puts it on another (a
// Proclaim keeps the lease).
func takesKey(txn *pb.TxnRequest, key string) bool {
	for _, c := range txn.Compare {
		switch {
		case !bytes.Equal(c.Key, []byte(key)):
		case c.Target == pb.Compare_CREATE && c.Result == pb.Compare_EQUAL && c.GetCreateRevision() == 0:
			return true
		case c.Target == pb.Compare_LEASE:
			for _, op := range txn.Success {
				if put := op.GetRequestPut(); put != nil && bytes.Equal(put.Key, []byte(key)) && put.Lease != c.GetLease() {
					return true
				}
			}
		}
	}
	return false
}

// passless is s with Limits that declare no pass: a resign deletes the
// key.
func passless(s *backends.Store) *backends.Store {
	d := etcd.DriverOf(s)
	return backends.NewStore(passlessStore{d})
}

type passlessStore struct {
	backends.Driver
}

func (p passlessStore) Capabilities() backends.Capabilities {
	l := p.Driver.Capabilities()
	l.Passes, l.CommittedWaits = false, false
	return l
}

func awaitWin(t *testing.T, wins <-chan *lease.Leadership) *lease.Leadership {
	t.Helper()
	select {
	case l := <-wins:
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no waiter won within 10s of the release")
	}
	return nil
}

// awaitCreates waits until creates reaches n; it fails the test after
// within.
func awaitCreates(t *testing.T, creates *atomic.Int64, n int64, within time.Duration, what string) {
	t.Helper()
	if got, ok := awaitCount(creates, n, within); !ok {
		t.Fatalf("%s: %d creates of the leader key sent within %v, want at least %d", what, got, within, n)
	}
}

// awaitCount polls c until it reaches n or within passes, and returns its
// value and whether it reached n.
func awaitCount(c *atomic.Int64, n int64, within time.Duration) (int64, bool) {
	deadline := time.Now().Add(within)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		got := c.Load()
		if got >= n || time.Now().After(deadline) {
			return got, got >= n
		}
		<-tick.C
	}
}
