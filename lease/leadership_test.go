package lease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/lease"
)

// TestZeroLeadership: a Leadership no Campaign returned holds nothing and
// says so; none of its methods panics.
func TestZeroLeadership(t *testing.T) {
	for name, l := range map[string]*lease.Leadership{
		"zero":   {},
		"forged": {Election: "jobs", Token: 42, Identity: "mallory"},
	} {
		t.Run(name, func(t *testing.T) {
			for what, err := range map[string]error{"Err": l.Err(), "Valid": l.Valid(), "Context cause": context.Cause(l.Context())} {
				if !errors.Is(err, lease.ErrNotLeadership) || !errors.Is(err, lease.ErrLost) {
					t.Errorf("%s = %v, want ErrNotLeadership and ErrLost", what, err)
				}
			}
			if !strings.Contains(l.Err().Error(), "not a leadership from Campaign") {
				t.Errorf("Err = %q, want it to say it is not a leadership from Campaign", l.Err())
			}
			select {
			case <-l.Context().Done():
			default:
				t.Error("Context().Done() is not closed")
			}
			if l.Context().Err() == nil {
				t.Error("Context is not cancelled")
			}
			if err := l.Resign(context.Background()); !errors.Is(err, lease.ErrNotLeadership) {
				t.Errorf("Resign = %v, want ErrNotLeadership", err)
			}
			if err := l.GuardedPut(context.Background(), "k", nil); !errors.Is(err, lease.ErrNotLeadership) {
				t.Errorf("GuardedPut = %v, want ErrNotLeadership", err)
			}
		})
	}
}

// TestGuardedPut: a leader's guarded write commits; after the leadership
// ended, Valid stops it before it is sent (ErrLost); an old term's write
// sent anyway is refused by the store (backends.ErrNotLeader).
func TestGuardedPut(t *testing.T) {
	store, stop := newStore()
	defer stop()
	e, err := lease.New(store, lease.Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := e.Campaign(ctx, "jobs/guarded")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.GuardedPut(ctx, "jobs/state", []byte("v1")); err != nil {
		t.Fatalf("GuardedPut while leading: %v", err)
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.GuardedPut(ctx, "jobs/state", []byte("v2")); !errors.Is(err, lease.ErrLost) || !errors.Is(err, lease.ErrResigned) {
		t.Fatalf("GuardedPut after Resign = %v, want ErrLost (ErrResigned)", err)
	}
	l2, err := e.Campaign(ctx, "jobs/guarded")
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Resign(ctx)
	err = driver.Of(store).GuardedPut(ctx, backends.Guarded{Election: "jobs/guarded", Token: uint64(l.Token), Key: "jobs/state", Value: []byte("late")})
	if !errors.Is(err, backends.ErrNotLeader) {
		t.Fatalf("the old term's write sent past the check = %v, want ErrNotLeader", err)
	}
}
