package backendtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// runGuardedTests runs the contract of Driver.GuardedPut.
func runGuardedTests(t *testing.T, h Harness) {
	tests := map[string]func(*testing.T, Harness){
		"Holder":       testGuardedHolder,
		"AfterDelete":  testGuardedAfterDelete,
		"AfterHandOff": testGuardedAfterHandOff,
		"HandOffRace":  testGuardedHandOffRace,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, h)
		})
	}
}

func wantNotLeader(t *testing.T, err error, what string) {
	t.Helper()
	if !errors.Is(err, backends.ErrNotLeader) {
		t.Fatalf("GuardedPut %s: %v, want ErrNotLeader", what, err)
	}
}

// testGuardedHolder: the holder's token writes; any other token, 0
// included, and an absent election are refused with ErrNotLeader.
func testGuardedHolder(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	ctx := Context(t, 10*time.Second)
	wantNotLeader(t, s.GuardedPut(ctx, backends.Guarded{Election: el, Token: 0, Key: "k", Value: []byte("v")}), "with token 0 on an absent election")
	wantNotLeader(t, s.GuardedPut(ctx, backends.Guarded{Election: el, Token: 1, Key: "k", Value: []byte("v")}), "on an absent election")
	rec := mustCreate(t, newSession(t, s), el, "alice")
	for i := range 3 {
		if err := s.GuardedPut(ctx, backends.Guarded{Election: el, Token: rec.Token, Key: "test/k", Value: fmt.Appendf(nil, "v%d", i)}); err != nil {
			t.Fatalf("GuardedPut %d with the holder's token %d: %v", i, rec.Token, err)
		}
	}
	wantNotLeader(t, s.GuardedPut(ctx, backends.Guarded{Election: el, Token: rec.Token + 1, Key: "test/k", Value: nil}), "with a higher token")
	wantNotLeader(t, s.GuardedPut(ctx, backends.Guarded{Election: el, Token: rec.Token - 1, Key: "test/k", Value: nil}), "with a lower token")
	wantNotLeader(t, s.GuardedPut(ctx, backends.Guarded{Election: el, Token: 0, Key: "test/k", Value: nil}), "with token 0")
	if err := s.GuardedPut(ctx, backends.Guarded{Election: el, Token: rec.Token, Key: "../bad", Value: nil}); err == nil || errors.Is(err, backends.ErrNotLeader) {
		t.Fatalf("GuardedPut to an invalid key: %v, want an error other than ErrNotLeader", err)
	}
}

// testGuardedAfterDelete: once the key is deleted (a resign), its token
// writes no more.
func testGuardedAfterDelete(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	ctx := Context(t, 10*time.Second)
	a := newSession(t, s)
	rec := mustCreate(t, a, el, "alice")
	if err := Release(ctx, a, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	wantNotLeader(t, s.GuardedPut(ctx, backends.Guarded{Election: el, Token: rec.Token, Key: "k", Value: []byte("v")}), "after the key was deleted")
}

// testGuardedAfterHandOff: after the holder's session expired and another
// took the key, the old token is refused and the new one writes.
func testGuardedAfterHandOff(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	ctx := Context(t, 10*time.Second)
	old := mustCreate(t, newSession(t, s), el, "alice")
	if err := h.ExpireSession(ctx, old.Owner); err != nil {
		t.Fatal(err)
	}
	wantNotLeader(t, s.GuardedPut(ctx, backends.Guarded{Election: el, Token: old.Token, Key: "k", Value: []byte("a")}), "after the holder's session expired")
	cur := createFreed(t, ctx, newSession(t, s), el, "bob")
	wantNotLeader(t, s.GuardedPut(ctx, backends.Guarded{Election: el, Token: old.Token, Key: "k", Value: []byte("a")}), "with the previous holder's token")
	if err := s.GuardedPut(ctx, backends.Guarded{Election: el, Token: cur.Token, Key: "k", Value: []byte("b")}); err != nil {
		t.Fatalf("GuardedPut with the new holder's token: %v", err)
	}
}

// testGuardedHandOffRace: writers hammer the store with the old holder's
// token while its session is expired and another session takes the key.
// No write sent after the expiry returned may be accepted.
func testGuardedHandOffRace(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	ctx := Context(t, 30*time.Second)
	old := mustCreate(t, newSession(t, s), el, "alice")
	var (
		gone     atomic.Bool // set once the old holder's session is expired
		late     atomic.Int64
		accepted atomic.Int64
		unknown  atomic.Int64
		wg       sync.WaitGroup
		once     sync.Once
		first    = make(chan struct{}) // closed at the first accepted write
	)
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	for range 4 {
		wg.Go(func() {
			for stop.Err() == nil {
				after := gone.Load()
				err := s.GuardedPut(ctx, backends.Guarded{Election: el, Token: old.Token, Key: "race", Value: []byte("old")})
				switch {
				case err == nil && after:
					late.Add(1)
				case err == nil:
					accepted.Add(1)
					once.Do(func() { close(first) })
				case !errors.Is(err, backends.ErrNotLeader):
					unknown.Add(1) // allowed: the outcome is unknown, as when the session's connection drops
				}
			}
		})
	}
	b := newSession(t, s)
	select {
	case <-first:
	case <-ctx.Done():
		t.Fatal("no write with the holder's token was accepted before the hand-off")
	}
	if err := h.ExpireSession(ctx, old.Owner); err != nil {
		t.Fatal(err)
	}
	gone.Store(true)
	createFreed(t, ctx, b, el, "bob")
	settle(ctx, 200*time.Millisecond)
	cancel()
	wg.Wait()
	if n := late.Load(); n > 0 {
		t.Fatalf("%d writes with the old token sent after its session expired were accepted", n)
	}
	t.Logf("%d writes with the old token accepted before the hand-off, none after; %d failed with an error other than ErrNotLeader",
		accepted.Load(), unknown.Load())
}

// settle holds the race open for d (a fixed duration, not a wait for a
// condition) or until ctx ends.
func settle(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}
