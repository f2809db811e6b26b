package lease

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestAwaitTarget: a leader waits for a handover's target without a
// read of its own: with no such candidate it waits (until its context
// ends); once the target campaigns it returns, and the handover finds
// it; a wait ends with ErrLost when the leadership does, and the
// elector keeps no wait behind.
func TestAwaitTarget(t *testing.T) {
	store := embeddedStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	el := "awaittarget/etcd"
	leader, l := leading(t, ctx, store, el, Options{Identity: "leader"})
	defer func() { _ = leader.Close(ctx) }()
	ended, stop := context.WithCancel(ctx)
	stop()
	if err := l.AwaitTarget(ended, "next"); !errors.Is(err, context.Canceled) {
		t.Fatalf("AwaitTarget with no target and an ended context = %v, want context.Canceled", err)
	}

	got := make(chan error, 1)
	go func() { got <- l.AwaitTarget(ctx, "next") }()
	next := testElector(t, store, Options{Identity: "next"})
	defer func() { _ = next.Close(ctx) }()
	won := make(chan *Leadership, 1)
	go func() {
		nl, err := next.Campaign(ctx, el)
		if err != nil {
			t.Error(err)
		}
		won <- nl
	}()
	if err := <-got; err != nil {
		t.Fatalf("AwaitTarget once the target campaigns = %v, want nil", err)
	}
	if err := l.HandOver(ctx, "next"); err != nil {
		t.Fatalf("HandOver after AwaitTarget = %v", err)
	}
	nl := <-won
	if nl == nil {
		t.Fatal("the target did not win")
	}

	go func() { got <- nl.AwaitTarget(ctx, "nobody") }()
	awaitWaits(t, ctx, next, 1)
	if err := nl.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; !errors.Is(err, ErrLost) {
		t.Fatalf("AwaitTarget when the leadership ended = %v, want ErrLost", err)
	}
	if err := nl.AwaitTarget(ctx, "leader"); !errors.Is(err, ErrLost) {
		t.Fatalf("AwaitTarget of an ended leadership = %v, want ErrLost", err)
	}
	awaitWaits(t, ctx, next, 0)
}

// awaitWaits waits until e has n AwaitTarget calls waiting, checking at
// each turn of its loop.
func awaitWaits(t *testing.T, ctx context.Context, e *LeaseElector, n int) {
	t.Helper()
	k := -1
	for ctx.Err() == nil && k != n {
		k = 0
		e.do(func(time.Time) {
			for _, ws := range e.awaits {
				k += len(ws)
			}
		})
	}
	if k != n {
		t.Fatalf("%d AwaitTarget calls waiting, want %d", k, n)
	}
}
