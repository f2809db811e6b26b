package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// TestHandOverReadsNothing: on etcd a leader with default options follows
// its roster in the watch set, so HandOver finds a waiter that joined
// after the win without a read: given a context that has already ended,
// it still starts, and the waiter leads.
func TestHandOverReadsNothing(t *testing.T) {
	etcdStore := embeddedStore(t)
	for _, tc := range []struct {
		name  string
		store *backends.Store
		reads bool
	}{
		{"etcd", etcdStore, false},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		el := "readsnothing/" + tc.name
		leader, l := leading(t, ctx, tc.store, el, Options{Identity: "leader"})
		next := testElector(t, etcdStore, Options{Identity: "next"})
		won := make(chan error, 1)
		go func() { _, err := next.Campaign(ctx, el); won <- err }()
		awaitCandidates(t, ctx, leader, el, 2)
		ended, stop := context.WithCancel(ctx)
		stop()
		// The leader's own roster follows a notification behind the
		// list awaited: until it has the waiter, HandOver reads, and
		// fails with the ended context. Each try is a call, not a sleep.
		var err error
		for l.Err() == nil && ctx.Err() == nil {
			if err = l.HandOver(ended, "next"); tc.reads {
				break
			}
		}
		switch {
		case tc.reads && (!errors.Is(err, context.Canceled) || l.Err() != nil):
			t.Fatalf("%s: HandOver with an ended context = %v, leadership %v; want context.Canceled, still leading", tc.name, err, l.Err())
		case !tc.reads && !errors.Is(l.Err(), ErrHandover):
			t.Fatalf("%s: leadership ended with %v (last HandOver: %v), want ErrHandover", tc.name, l.Err(), err)
		case !tc.reads:
			if err := <-won; err != nil {
				t.Fatalf("%s: the target's campaign: %v", tc.name, err)
			}
		}
		for _, e := range []*LeaseElector{next, leader} {
			_ = e.Close(ctx)
		}
		cancel()
	}
}
