package etcd_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd"
)

// TestWatchSetSynced: a request whose known revision the store has moved
// past by the time its watches are made (here by a write elsewhere, as a
// fresh waiter's own roster record is) is watched by watches etcd tells
// each change at once: each starts after the store's revision at its
// creation, or at it (StartRevision 0). etcd tells a watch that starts at
// or before that revision nothing until its next sync of such watches,
// every 100 ms, even the changes made after it was made: the bench's
// fresh waiter took p50 11.7 ms, p99 86 ms, to see a release. The
// request is still answered with a change it missed: one made before its
// watches were, after what it knows, is read (Reread). So is a roster
// request's, on the set's roster watch.
func TestWatchSetSynced(t *testing.T) {
	made := &madeWatches{start: map[int64]int64{}, created: make(chan struct{}, 16)}
	c, err := clientv3.New(clientv3.Config{Endpoints: harness.Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithChainStreamInterceptor(made.intercept())}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	st, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := etcd.DriverOf(st)
	other, _ := newDriver(t)
	writer := harness.Dial(t)
	ctx := backendtest.Context(t, time.Minute)
	ss, err := other.NewSession(ctx, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close(context.Background()) })
	ch := make(chan backends.Change, 4)
	set := s.Watch(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })

	t.Run("MovedElsewhere", func(t *testing.T) {
		el := backendtest.Election(t)
		rec, err := ss.Create(ctx, el, []byte("a"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := writer.Put(ctx, "/elsewhere/"+el, "x"); err != nil { // the store moves past rec
			t.Fatal(err)
		}
		set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: rec})
		for range 2 { // the leader key's and the term key's
			made.await(t)
		}
		if err := backendtest.Release(ctx, ss, el, rec.Token); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if got := next(t, ch); got.Err != nil || got.Tag != 1 || got.Record.Exists() {
			t.Fatalf("answer = %+v, want tag 1 with the key absent", got)
		}
		t.Logf("release told in %v", time.Since(t0))
	})
	t.Run("MovedByTheChange", func(t *testing.T) {
		el := backendtest.Election(t)
		rec, err := ss.Create(ctx, el, []byte("a"))
		if err != nil {
			t.Fatal(err)
		}
		if err := backendtest.Release(ctx, ss, el, rec.Token); err != nil {
			t.Fatal(err)
		}
		set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: rec})
		if got := next(t, ch); got.Err != nil || got.Tag != 2 || got.Record.Exists() {
			t.Fatalf("answer = %+v, want tag 2 with the key absent", got)
		}
	})
	t.Run("Roster", func(t *testing.T) { // the set's roster watch, opened by this request
		el := backendtest.Election(t)
		recs, rev, err := s.List(ctx, el)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := writer.Put(ctx, "/elsewhere/"+el, "x"); err != nil {
			t.Fatal(err)
		}
		made.drain()
		set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 3, Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(recs)})
		made.await(t)
		if _, err := ss.Join(ctx, el, []byte("b")); err != nil {
			t.Fatal(err)
		}
		rosterAnswered(t, ch, 3, el, 20*time.Second)
	})
	made.check(t)
}

// madeWatches checks, from the client's side, that every watch made on
// a client's watch streams starts after the store's revision when it
// was made (its created response's header), or at it (0): one that
// starts at or before it is one etcd leaves unsynced.
type madeWatches struct {
	mu       sync.Mutex
	start    map[int64]int64 // a create's StartRevision, by stream and watch ID (see streamWatch)
	unsynced []string
	created  chan struct{}
}

// intercept is the client's stream interceptor (watchTap).
func (m *madeWatches) intercept() grpc.StreamClientInterceptor {
	return watchTap(m.sent, m.got)
}

// streamWatch names watch wid of stream n.
func streamWatch(n, wid int64) int64 { return n<<32 | wid }

func (m *madeWatches) sent(n int64, r *pb.WatchRequest) {
	if c := r.GetCreateRequest(); c != nil {
		m.mu.Lock()
		m.start[streamWatch(n, c.WatchId)] = c.StartRevision
		m.mu.Unlock()
	}
}

func (m *madeWatches) got(n int64, r *pb.WatchResponse) {
	if !r.Created {
		return
	}
	rev := r.Header.GetRevision()
	m.mu.Lock()
	if start := m.start[streamWatch(n, r.WatchId)]; start != 0 && start <= rev {
		m.unsynced = append(m.unsynced, fmt.Sprintf("watch %d made from revision %d at revision %d", r.WatchId, start, rev))
	}
	m.mu.Unlock()
	select {
	case m.created <- struct{}{}:
	default:
	}
}

// await waits for the next watch created, within 10 s.
func (m *madeWatches) await(t *testing.T) {
	t.Helper()
	select {
	case <-m.created:
	case <-time.After(10 * time.Second):
		t.Fatal("no watch created within 10 s")
	}
}

// drain forgets the watches created so far.
func (m *madeWatches) drain() {
	for {
		select {
		case <-m.created:
		default:
			return
		}
	}
}

// check fails t for each watch made unsynced.
func (m *madeWatches) check(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, u := range m.unsynced {
		t.Errorf("%s: etcd tells it nothing until its next sync of unsynced watches (every 100 ms)", u)
	}
}
