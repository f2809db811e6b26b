package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// newEtcdElector returns an elector with a 2 s TTL on an in-process etcd.
func newEtcdElector(t *testing.T) *LeaseElector {
	t.Helper()
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cli, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	store, err := etcd.New(cli, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(store, Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

// freeze runs first on the elector's loop goroutine and then stops it, as
// a pause of the process that the application's goroutine outruns after
// SIGCONT: the loop runs nothing more until thaw is called.
func freeze(t *testing.T, e *LeaseElector, first func(now time.Time)) (thaw func()) {
	t.Helper()
	frozen, resume := make(chan struct{}), make(chan struct{})
	if !e.post(func(now time.Time) {
		first(now)
		close(frozen)
		<-resume
	}) {
		t.Fatal("elector closed")
	}
	<-frozen
	return func() { close(resume) }
}

// waitInvalid polls l.Valid until it says no, or fails after bound. It
// waits on the clock passing the deadline, the condition itself.
func waitInvalid(t *testing.T, l *Leadership, bound time.Duration) error {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(bound)
	for {
		if err := l.Valid(); err != nil {
			return err
		}
		select {
		case <-tick.C:
		case <-limit:
			t.Fatalf("Valid still nil %v later", bound)
		}
	}
}

// TestValidAfterPause: with the elector's goroutine frozen past the
// holder's deadline (a paused process whose application runs first after
// SIGCONT), the context still looks live, but Valid says no at once. When
// the goroutine runs again, the leadership ends, even though the machine
// had taken in a renewal that extended the deadline before the pause (its
// success came in just before; the pause struck before it was published):
// a "no" from Valid is final.
func TestValidAfterPause(t *testing.T) {
	e := newEtcdElector(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := e.Campaign(ctx, "paused")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Valid(); err != nil {
		t.Fatalf("Valid of a fresh leadership: %v", err)
	}
	// Frozen shortly before the published deadline, the machine takes in
	// a renewal sent then: its deadline moves a full hold (1.48 s) later,
	// but the pause strikes before that is published.
	var extended time.Duration
	thaw := freeze(t, e, func(time.Time) {
		epoch, dl := e.m.Epoch(), e.health.hold.Load().deadline
		<-time.After(time.Until(dl) - 150*time.Millisecond)
		sent := time.Now()
		if err := e.sessions[epoch].KeepAlive(ctx); err != nil {
			t.Errorf("keep-alive: %v", err)
		}
		e.m.Renewed(time.Now(), epoch, sent)
		extended = e.m.Deadline().Sub(dl)
	})
	if extended < time.Second {
		t.Fatalf("the renewal moved the machine's deadline by %v; the test needs over 1s", extended)
	}
	err = waitInvalid(t, l, 3*time.Second)
	if !errors.Is(err, ErrLost) || !errors.Is(err, ErrRenewDeadline) {
		t.Errorf("Valid past the deadline = %v, want ErrLost and ErrRenewDeadline", err)
	}
	if l.Err() != nil {
		t.Fatalf("the context ended while the elector's goroutine was frozen: %v", l.Err())
	}
	thaw()
	select {
	case <-l.Context().Done():
	case <-time.After(time.Second): // within the extended hold
		t.Fatal("the leadership Valid said was over went on after the elector's goroutine ran")
	}
	if err := l.Err(); !errors.Is(err, ErrRenewDeadline) {
		t.Errorf("Err = %v, want ErrRenewDeadline", err)
	}
	if err := l.Valid(); err == nil {
		t.Error("Valid = nil after the leadership ended")
	}
}

// TestValidWhileRenewing: Valid stays nil while renewals succeed, well
// past the first deadline, and says no after Resign.
func TestValidWhileRenewing(t *testing.T) {
	e := newEtcdElector(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := e.Campaign(ctx, "renewing")
	if err != nil {
		t.Fatal(err)
	}
	first := e.health.hold.Load().deadline
	past := time.NewTimer(time.Until(first) + 200*time.Millisecond)
	defer past.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-past.C:
			done = true
		case <-tick.C:
		}
		if err := l.Valid(); err != nil {
			t.Fatalf("Valid of a renewing leadership: %v", err)
		}
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Valid(); !errors.Is(err, ErrLost) || !errors.Is(err, ErrResigned) {
		t.Fatalf("Valid after Resign = %v, want ErrLost and ErrResigned", err)
	}
}

// TestRunAfterPause: fn returns because Valid said no, while the elector's
// goroutine is still frozen and the context still looks live. Run must
// count that as a loss, wait for the leadership to end, and campaign
// again, not resign and return as if fn had chosen to stop.
func TestRunAfterPause(t *testing.T) {
	e := newEtcdElector(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var tokens []uint64
	err := e.Run(ctx, "run-paused", func(fctx context.Context, l *Leadership) error {
		tokens = append(tokens, uint64(l.Token))
		if len(tokens) > 1 {
			cancel()
			return nil
		}
		thaw := freeze(t, e, func(time.Time) {})
		if err := waitInvalid(t, l, 3*time.Second); !errors.Is(err, ErrLost) {
			t.Errorf("Valid = %v, want ErrLost", err)
		}
		if fctx.Err() != nil {
			t.Errorf("fn's context ended while the elector's goroutine was frozen: %v", fctx.Err())
		}
		time.AfterFunc(100*time.Millisecond, thaw) // the rest of the pause, after fn returned
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled after the second term", err)
	}
	if len(tokens) != 2 || tokens[1] <= tokens[0] {
		t.Fatalf("terms led: tokens %v, want two, increasing", tokens)
	}
}
