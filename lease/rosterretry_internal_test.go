package lease

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// TestFailingRosterWritesHoldNoSlots: a candidate record's write that
// failed waits for its retry on the machine's timer, holding none of the
// elector's call slots (maxElectionCalls). On embedded etcd, with the
// Joins of 2×maxElectionCalls elections failing and retried after 5 s,
// another election's Campaign creates its key at once, not after the
// retry wait.
func TestFailingRosterWritesHoldNoSlots(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := &failingJoins{failed: make(chan struct{}, 16*maxElectionCalls)}
	const retry = 5 * time.Second
	e, err := New(backends.NewStore(wrappedSessions{embeddedDriver(t), f.wrap}), Options{Identity: "busy", TTL: 10 * time.Second, RetryInterval: retry})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close(context.Background()) }()
	const n = 2 * maxElectionCalls
	won := make(chan error, n)
	for i := range n {
		go func() { _, err := e.Campaign(ctx, fmt.Sprintf("fail/%d", i)); won <- err }()
	}
	for range n {
		if err := <-won; err != nil {
			t.Fatalf("a campaign whose record cannot be written: %v", err)
		}
	}
	for i := range n {
		select {
		case <-f.failed:
		case <-ctx.Done():
			t.Fatalf("%d of %d candidate record writes failed, want all", i, n)
		}
	}
	start := time.Now()
	cctx, ccancel := context.WithTimeout(ctx, retry/2)
	defer ccancel()
	if _, err := e.Campaign(cctx, "free"); err != nil {
		t.Fatalf("Campaign of another election while %d record writes wait to retry: %v after %v; want it won at once",
			n, err, time.Since(start).Round(time.Millisecond))
	}
}

// failingJoins makes sessions whose Join fails, as if the store could
// not be reached, for the elections under "fail/", each failure first
// sending on failed if it has room.
type failingJoins struct {
	failed chan struct{}
}

func (f *failingJoins) wrap(s backends.Session) backends.Session { return failingSession{s, f} }

// failingSession is a session of failingJoins.
type failingSession struct {
	backends.Session
	f *failingJoins
}

func (fs failingSession) Join(ctx context.Context, election string, value []byte) (backends.Record, error) {
	f := fs.f
	if !strings.HasPrefix(election, "fail/") {
		return fs.Session.Join(ctx, election, value)
	}
	select {
	case f.failed <- struct{}{}:
	default:
	}
	return backends.Record{}, fmt.Errorf("%w: the test fails it", backends.ErrUnavailable)
}
