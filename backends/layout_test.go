package backends_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// marker is a layout marker held in memory, counting the calls.
type marker struct {
	value         []byte
	deny          bool // Create is refused for want of rights
	reads, writes int
}

func (m *marker) layout() *backends.Layout {
	return &backends.Layout{Store: "test", Prefix: "/p/", Version: 1,
		Read: func(context.Context) ([]byte, bool, error) {
			m.reads++
			return m.value, m.value != nil, nil
		},
		Create: func(_ context.Context, v []byte) ([]byte, error) {
			m.writes++
			if m.deny {
				return nil, fmt.Errorf("test: %w", backends.ErrPermission)
			}
			if m.value == nil {
				m.value = v
			}
			return m.value, nil
		}}
}

// TestLayoutOnce: a Layout reads or writes the marker until it knows the
// outcome, and then never again: a read that found none lets reads by,
// and the first claim still writes.
func TestLayoutOnce(t *testing.T) {
	ctx := context.Background()
	m := &marker{}
	l := m.layout()
	for range 3 {
		if err := l.Check(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if err := l.Claim(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if m.reads != 1 || m.writes != 1 || string(m.value) != "1" {
		t.Fatalf("reads %d, writes %d, marker %q; want 1, 1, \"1\"", m.reads, m.writes, m.value)
	}
}

// TestLayoutDenied: a claim refused for want of rights reads the marker
// instead, accepts none, and tries again at the next claim.
func TestLayoutDenied(t *testing.T) {
	ctx := context.Background()
	m := &marker{deny: true}
	l := m.layout()
	for range 2 {
		if err := l.Claim(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if m.reads != 1 || m.writes != 2 {
		t.Fatalf("reads %d, writes %d; want 1, 2", m.reads, m.writes)
	}
}

// TestLayoutForeign: a marker of another version fails every call with
// ErrLayout, after one read.
func TestLayoutForeign(t *testing.T) {
	ctx := context.Background()
	m := &marker{value: []byte("2")}
	l := m.layout()
	for _, call := range []func(context.Context) error{l.Check, l.Claim, l.Check} {
		if err := call(ctx); !errors.Is(err, backends.ErrLayout) {
			t.Fatalf("err = %v, want ErrLayout", err)
		}
	}
	if m.reads != 1 || m.writes != 0 {
		t.Fatalf("reads %d, writes %d; want 1, 0", m.reads, m.writes)
	}
}
