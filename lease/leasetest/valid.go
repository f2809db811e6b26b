package leasetest

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// testValid: Valid is nil while the leader renews, and GuardedPut commits
// (where the store offers guarded writes); cut off from the store, the
// leader's Valid says no by the holder's deadline, before or as its
// context ends, and GuardedPut sends nothing.
func (s *suite) testValid(t *testing.T) {
	e, sever := s.elector(t, "valid")
	ctx := backendtest.Context(t, 30*time.Second)
	l, err := e.Campaign(ctx, backendtest.Election(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Valid(); err != nil {
		t.Fatalf("Valid of a fresh leadership: %v", err)
	}
	err = l.GuardedPut(ctx, "valid/k", []byte("v"))
	if errors.Is(err, errors.ErrUnsupported) {
		t.Logf("the store offers no guarded writes: %v", err)
	} else if err != nil {
		t.Fatalf("GuardedPut while leading: %v", err)
	}
	sever()
	opts := e.Options()
	bound := time.After(opts.TTL + time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		ended := l.Err() != nil
		if l.Valid() != nil {
			break
		}
		if ended {
			t.Fatalf("Valid said yes after the context ended (%v)", l.Err())
		}
		select {
		case <-tick.C:
		case <-bound:
			t.Fatalf("Valid still nil %v after the store was cut off", opts.TTL+time.Second)
		}
	}
	if err := l.Valid(); !errors.Is(err, lease.ErrLost) {
		t.Fatalf("Valid after the deadline = %v, want ErrLost", err)
	}
	if err := l.GuardedPut(ctx, "valid/k", []byte("late")); !errors.Is(err, lease.ErrLost) && !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("GuardedPut after the loss = %v, want ErrLost", err)
	}
}
