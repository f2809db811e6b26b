package backendtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

func testCloseReleases(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	mustCreate(t, a, el, "alice")
	ctx := Context(t, 10*time.Second)
	if err := a.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if g := mustGet(t, s, el); g.Exists() {
		t.Fatalf("after Close, Get = %+v, want absent", g)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatalf("second Close: %v, want nil", err)
	}
	if err := a.KeepAlive(ctx); !errors.Is(err, backends.ErrSessionExpired) {
		t.Fatalf("KeepAlive after Close: %v, want ErrSessionExpired", err)
	}
}

func testExpiredSession(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	mustCreate(t, a, el, "alice")
	ctx := Context(t, 10*time.Second)
	if err := h.ExpireSession(ctx, a.ID()); err != nil {
		t.Fatalf("ExpireSession: %v", err)
	}
	if g := mustGet(t, s, el); g.Exists() {
		t.Fatalf("after expiry, Get = %+v, want absent", g)
	}
	if err := a.KeepAlive(ctx); !errors.Is(err, backends.ErrSessionExpired) {
		t.Fatalf("KeepAlive of an expired session: %v, want ErrSessionExpired", err)
	}
	if _, err := a.Create(ctx, Election(t), nil); !errors.Is(err, backends.ErrSessionExpired) {
		t.Fatalf("Create on an expired session: %v, want ErrSessionExpired", err)
	}
}

// expirySlack is what testTTLExpiry allows past ExpiryBound for the
// notice to reach the test: the server's commit of the expiry and the
// watch's delivery, on a machine that may be running three servers' JVMs
// on two cores (1.38 s past the TTL has been seen for a 2 s session on a
// 3-node ZooKeeper ensemble while other suites ran).
const expirySlack = 2 * time.Second

// testTTLExpiry checks that the store keeps a renewed session past its TTL
// and expires a silent one: its key is gone no sooner than TTL after the
// last renewal was sent, and not much later.
func testTTLExpiry(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	rec := mustCreate(t, a, el, "alice")
	sent := time.Now()
	if err := a.KeepAlive(Context(t, 10*time.Second)); err != nil {
		t.Fatalf("KeepAlive: %v", err)
	}
	ch := startWait(t, s, mustGet(t, s, el))
	bound := ExpiryBound(h, a.TTL())
	got := awaitWithin(t, ch, bound+expirySlack+5*time.Second)
	gone := time.Since(sent)
	if got.Exists() {
		t.Fatalf("first change after the last renewal = %+v, want the key gone", got)
	}
	if gone < a.TTL() || gone > bound+expirySlack {
		t.Fatalf("key %d expired %v after the last renewal was sent, want between the TTL %v and %v (the store's bound %v and %v for the notice)",
			rec.Token, gone, a.TTL(), bound+expirySlack, bound, expirySlack)
	}
	t.Logf("silent session's key expired %v after the last renewal (TTL %v)", gone, a.TTL())
}

func testSevered(t *testing.T, h Harness) {
	s, sever := newDriver(t, h)
	a := newSession(t, s)
	sever()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	if err := a.KeepAlive(ctx); err == nil {
		t.Fatal("KeepAlive on a severed connection succeeded")
	}
	if _, err := s.Get(ctx, Election(t)); err == nil {
		t.Fatal("Get on a severed connection succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("calls on a severed connection took %v, beyond their 2s context", d)
	}
}
