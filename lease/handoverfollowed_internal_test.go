package lease

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestHandOverReadsNothing: on etcd a leader with default options follows
// its roster in the watch set, so HandOver finds a waiter that joined
// after the win without a read: given a context that has already ended,
// it still starts, and the waiter leads.
func TestHandOverReadsNothing(t *testing.T) {
	store := embeddedStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	el := "readsnothing/etcd"
	leader, l := leading(t, ctx, store, el, Options{Identity: "leader"})
	defer func() { _ = leader.Close(ctx) }()
	next := testElector(t, store, Options{Identity: "next"})
	defer func() { _ = next.Close(ctx) }()
	won := make(chan error, 1)
	go func() { _, err := next.Campaign(ctx, el); won <- err }()
	awaitCandidates(t, ctx, leader, el, 2)
	ended, stop := context.WithCancel(ctx)
	stop()
	// The leader's own roster follows a notification behind the list
	// awaited: until it has the waiter, HandOver reads, and fails with
	// the ended context. Each try is a call, not a sleep.
	var err error
	for l.Err() == nil && ctx.Err() == nil {
		err = l.HandOver(ended, "next")
	}
	if !errors.Is(l.Err(), ErrHandover) {
		t.Fatalf("leadership ended with %v (last HandOver: %v), want ErrHandover", l.Err(), err)
	}
	if err := <-won; err != nil {
		t.Fatalf("the target's campaign: %v", err)
	}
}
