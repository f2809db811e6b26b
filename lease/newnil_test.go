package lease_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/leasehold/leasehold/lease"
)

// TestNewNilStore: lease.New with a nil store fails with ErrInvalidOption,
// naming the argument.
func TestNewNilStore(t *testing.T) {
	_, err := lease.New(nil, lease.Options{})
	if !errors.Is(err, lease.ErrInvalidOption) || !strings.Contains(err.Error(), "store argument is nil") {
		t.Fatalf("New(nil) = %v, want ErrInvalidOption naming the store argument", err)
	}
}
