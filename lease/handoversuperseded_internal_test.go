package lease

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestHandOverSuperseded: of two candidate records with one identity, a
// handover goes to the later one, as to an elector that gave its first
// session up and stood again under a new one while the store still held
// the first: named by the identity, it goes to the later record's
// session; named by the earlier record's session, it is refused with
// ErrNoCandidate and the leadership is kept, and so is a request for it
// (RequestHandover).
func TestHandOverSuperseded(t *testing.T) {
	store, _ := embeddedStoreClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const el = "superseded"
	leader, l := leading(t, ctx, store, el, Options{Identity: "leader"})
	defer func() { _ = leader.Close(ctx) }()
	var bs []*LeaseElector
	var won []chan *Leadership // won[i]: bs[i]'s leadership
	for i := range 2 {
		b := testElector(t, store, Options{Identity: "b"})
		defer func() { _ = b.Close(ctx) }()
		ch := make(chan *Leadership, 1)
		won = append(won, ch)
		go func() {
			if bl, err := b.Campaign(ctx, el); err == nil {
				ch <- bl
			}
		}()
		awaitCandidates(t, ctx, leader, el, 2+i)
		bs = append(bs, b)
	}
	// The leader follows its roster a notification behind the list
	// awaited: wait until its core has the later record.
	awaitTarget(t, ctx, leader, el, bs[1].SessionID())
	if err := l.HandOver(ctx, bs[0].SessionID()); !errors.Is(err, ErrNoCandidate) || l.Err() != nil {
		t.Fatalf("HandOver to the superseded session = %v (leadership: %v), want ErrNoCandidate and still leading", err, l.Err())
	}
	requester := testElector(t, store, Options{Identity: "ops"})
	defer func() { _ = requester.Close(ctx) }()
	if _, err := requester.RequestHandover(ctx, el, bs[0].SessionID()); !errors.Is(err, ErrNoCandidate) {
		t.Fatalf("RequestHandover to the superseded session = %v, want ErrNoCandidate", err)
	}
	if err := l.HandOver(ctx, "b"); err != nil {
		t.Fatalf("HandOver(%q): %v", "b", err)
	}
	select {
	case bl := <-won[1]:
		if bl.Token <= l.Token {
			t.Fatalf("the later record's elector leads with token %d, not above %d", bl.Token, l.Token)
		}
	case bl := <-won[0]:
		t.Fatalf("the superseded record's elector leads (token %d)", bl.Token)
	case <-ctx.Done():
		t.Fatal("no one led after the handover")
	}
}
