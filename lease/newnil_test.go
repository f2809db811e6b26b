package lease_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease"
)

// TestNewNilStore: lease.New with a nil or zero store fails with
// ErrInvalidOption, naming the argument.
func TestNewNilStore(t *testing.T) {
	_, err := lease.New(nil, lease.Options{})
	if !errors.Is(err, lease.ErrInvalidOption) || !strings.Contains(err.Error(), "store argument is nil") {
		t.Fatalf("New(nil) = %v, want ErrInvalidOption naming the store argument", err)
	}
	_, err = lease.New(&backends.Store{}, lease.Options{})
	if !errors.Is(err, lease.ErrInvalidOption) || !strings.Contains(err.Error(), "store argument holds no driver") {
		t.Fatalf("New(&backends.Store{}) = %v, want ErrInvalidOption naming the store argument", err)
	}
}
