package lease

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// TestCloseAbandonedAfterOutage: a session given up while the store could
// not be reached is closed no sooner than SafetyMargin after its holder's
// context ended (its first close, which fails, comes then), and once the
// store answers again, long before the store would expire it: its lease is
// revoked, and the leader key bound to it goes.
func TestCloseAbandonedAfterOutage(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	direct := etcdClient(t, srv.Endpoint)
	k := newLink(t, strings.TrimPrefix(srv.Endpoint, "http://"))
	store, err := etcd.New(etcdClient(t, "http://"+k.addr()), etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tap := &closeTap{recs: make(chan slog.Record, 64)}
	// The holder gives up 4 s after its last renewal (10 s − 2 s − 0.4×10 s)
	// and closes 2 s later; etcd keeps the lease 10 s, so a lease gone well
	// before then was revoked.
	const margin = 2 * time.Second
	e, err := New(store, Options{TTL: 10 * time.Second, SafetyMargin: margin, ClockDrift: 0.4,
		RetryInterval: 100 * time.Millisecond, RequestTimeout: 500 * time.Millisecond, Logger: slog.New(tap)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	defer k.setDown(false) // before the Close above, if the test fails with the link down
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	l, err := e.Campaign(ctx, "abandoned")
	if err != nil {
		t.Fatal(err)
	}
	id := e.SessionID()
	lease, err := strconv.ParseInt(id, 16, 64)
	if err != nil {
		t.Fatalf("session ID %q is not an etcd lease ID: %v", id, err)
	}
	k.setDown(true)
	select {
	case <-l.Context().Done():
	case <-ctx.Done():
		t.Fatal("the leadership outlived a cut link")
	}
	stopped := time.Now()
	if cause := context.Cause(l.Context()); !errors.Is(cause, ErrRenewDeadline) {
		t.Fatalf("leadership ended with %v, want ErrRenewDeadline", cause)
	}
	// stopped is when this goroutine saw the context end, a little after
	// it ended: allow it a tenth of the margin.
	if r := tap.await(t, ctx, "abandoned session close failed", id); r.Time.Sub(stopped) < margin*9/10 {
		t.Fatalf("first close of the abandoned session %v after its holder's context ended, want no sooner than SafetyMargin %v",
			r.Time.Sub(stopped), margin)
	}
	k.setDown(false)

	sent := time.Now()
	ttl, err := direct.TimeToLive(ctx, clientv3.LeaseID(lease))
	if err != nil || ttl.TTL <= 0 {
		t.Fatalf("lease %s after the outage: %+v, %v; want still alive", id, ttl, err)
	}
	expiry := sent.Add(time.Duration(ttl.TTL) * time.Second) // etcd expires it no sooner
	awaitKeyGone(t, ctx, etcdStore(t, direct), "abandoned", id, expiry)
	if ttl, err := direct.TimeToLive(ctx, clientv3.LeaseID(lease)); err != nil || ttl.TTL != -1 {
		t.Fatalf("lease %s after its key went: %+v, %v; want revoked (TTL -1)", id, ttl, err)
	}
	if !time.Now().Before(expiry) {
		t.Fatalf("lease %s went only at its expiry", id)
	}
	r := tap.await(t, ctx, "abandoned session closed", id)
	if n := attr(r, "attempts").Int64(); n < 2 {
		t.Fatalf("abandoned session closed after %d attempts, want at least 2", n)
	}
	if err := e.Close(ctx); err != nil {
		t.Fatalf("Close after the abandoned session was closed: %v", err)
	}
}

// awaitKeyGone waits until the key of election, held by session id, is
// deleted or taken by another, failing t if that has not happened by
// deadline.
func awaitKeyGone(t *testing.T, ctx context.Context, store *backends.Store, election, id string, deadline time.Time) {
	t.Helper()
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	d := driver.Of(store)
	rec, err := d.Get(ctx, election)
	for err == nil && rec.Exists() && rec.Owner == id {
		rec, err = waitKey(ctx, d, rec)
	}
	if err != nil {
		t.Fatalf("key of %q, bound to abandoned session %s, not gone before the session's expiry: %v", election, id, err)
	}
}

// etcdClient returns a client of endpoint that t's cleanup closes. It
// redials at most 200 ms after a failed dial, so that it reconnects soon
// after a link comes back up.
func etcdClient(t *testing.T, endpoint string) *clientv3.Client {
	t.Helper()
	redial := grpc.WithConnectParams(grpc.ConnectParams{MinConnectTimeout: time.Second,
		Backoff: backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 200 * time.Millisecond}})
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second,
		Logger: zap.NewNop(), DialOptions: []grpc.DialOption{redial}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

func etcdStore(t *testing.T, cli *clientv3.Client) *backends.Store {
	t.Helper()
	store, err := etcd.New(cli, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// closeTap is a slog.Handler that passes on the records about abandoned
// sessions.
type closeTap struct{ recs chan slog.Record }

func (h *closeTap) Enabled(context.Context, slog.Level) bool { return true }
func (h *closeTap) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *closeTap) WithGroup(string) slog.Handler            { return h }

func (h *closeTap) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "abandoned session") {
		select {
		case h.recs <- r.Clone():
		default: // the test waits for far fewer
		}
	}
	return nil
}

// await returns the first record with message msg about session id,
// failing t if none comes before ctx ends.
func (h *closeTap) await(t *testing.T, ctx context.Context, msg, id string) slog.Record {
	t.Helper()
	for {
		select {
		case r := <-h.recs:
			if r.Message == msg && attr(r, "session").String() == id {
				return r
			}
		case <-ctx.Done():
			t.Fatalf("no log %q for session %s", msg, id)
		}
	}
}

// attr returns the value of r's attribute key, or the zero Value.
func attr(r slog.Record, key string) slog.Value {
	var v slog.Value
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value
			return false
		}
		return true
	})
	return v
}
