package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/internal/keys"
)

// TestSweepsKeyPassedAfterCampaignEnded: on embedded etcd, a leader hands
// its key to a candidate whose campaign has just ended, while that
// candidate's record is still there (its Leave held up). Once the record
// goes, the candidate's elector reads the key, sees it bound to its
// session with no campaign, and deletes it; the first reads fail, and
// are made again. Left, the key would stay bound to a live session with
// no one to lead with it or let it go.
func TestSweepsKeyPassedAfterCampaignEnded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store, cli := embeddedStoreClient(t)
	const el = "swept"
	f := &sweepFaults{left: make(chan struct{}), release: make(chan struct{})}
	f.Driver = wrappedSessions{driver.Of(store), f.wrap}
	a, err := New(backends.NewStore(f), Options{Identity: "a", TTL: 10 * time.Second, Wait: WaitKey, RetryInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Close(context.Background()) }()
	b := elector(t, store, "b")
	l, err := b.Campaign(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	actx, acancel := context.WithCancel(ctx)
	campaigned := make(chan error, 1)
	go func() { _, err := a.Campaign(actx, el); campaigned <- err }()
	rosterOf(t, ctx, store, el, 2)
	acancel()
	if err := <-campaigned; !errors.Is(err, context.Canceled) {
		t.Fatalf("a's canceled campaign: %v, want context.Canceled", err)
	}
	select {
	case <-f.left: // a's Leave is held up: its record is still there
	case <-ctx.Done():
		t.Fatal("a's campaign ended, and its record's Leave was never made")
	}
	watch := cli.Watch(ctx, keys.Leader(etcd.DefaultPrefix, el))
	if err := l.HandOver(ctx, "a"); err != nil {
		t.Fatalf("handover to a, whose record is still there: %v", err)
	}
	f.failGets.Store(2)
	close(f.release)
	for {
		select {
		case resp := <-watch:
			for _, ev := range resp.Events {
				if ev.Type == clientv3.EventTypeDelete {
					if n := f.gets.Load(); n < 3 {
						t.Fatalf("key deleted after %d reads, want 2 failed and 1 more", n)
					}
					return
				}
			}
		case <-ctx.Done():
			li, err := b.Leader(context.Background(), el)
			t.Fatalf("the key passed to a after its campaign ended is still there: held by %q, token %d (%v); reads of it by a: %d",
				li.Identity, li.Token, err, f.gets.Load())
		}
	}
}

// sweepFaults is the driver of embedded etcd with two faults, for the
// election "swept": a session's Leave waits for release, saying so on
// left; and the next failGets reads of the key fail, as if the store
// could not be reached. gets counts the reads from release on.
type sweepFaults struct {
	backends.Driver
	left, release chan struct{}
	once          sync.Once
	failGets      atomic.Int32
	gets          atomic.Int32
}

func (f *sweepFaults) wrap(s backends.Session) backends.Session { return sweepSession{s, f} }

func (f *sweepFaults) Get(ctx context.Context, election string) (backends.Record, error) {
	if election == "swept" && f.released() {
		f.gets.Add(1)
		if f.failGets.Add(-1) >= 0 {
			return backends.Record{}, fmt.Errorf("%w: the test fails it", backends.ErrUnavailable)
		}
	}
	return f.Driver.Get(ctx, election)
}

func (f *sweepFaults) released() bool {
	select {
	case <-f.release:
		return true
	default:
		return false
	}
}

// sweepSession is a session of sweepFaults.
type sweepSession struct {
	backends.Session
	f *sweepFaults
}

func (s sweepSession) Leave(ctx context.Context, election string) error {
	if election == "swept" {
		s.f.once.Do(func() { close(s.f.left) })
		select {
		case <-s.f.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.Session.Leave(ctx, election)
}
