package backends_test

import (
	"errors"
	"testing"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver"
)

// closer is a Driver (its methods unused here) that counts its Closes.
type closer struct {
	backends.Driver
	closes int
}

func (c *closer) Close() error {
	c.closes++
	return errors.New("closed")
}

// TestStoreClose: Close closes a Driver that is an io.Closer once, and
// every later call returns the first call's result; a Driver that is not
// one is left alone, and Close returns nil.
func TestStoreClose(t *testing.T) {
	c := &closer{}
	s := backends.NewStore(c)
	for range 2 {
		if err := s.Close(); err == nil || err.Error() != "closed" {
			t.Fatalf("Close = %v, want the driver's error", err)
		}
	}
	if c.closes != 1 {
		t.Fatalf("the driver was closed %d times, want 1", c.closes)
	}
	plain := struct{ backends.Driver }{}
	if err := backends.NewStore(plain).Close(); err != nil {
		t.Fatalf("Close of a Store whose Driver is no io.Closer = %v, want nil", err)
	}
}

// TestNewStoreNil: a nil Driver is an adapter's bug, and NewStore panics.
func TestNewStoreNil(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewStore(nil) did not panic")
		}
	}()
	backends.NewStore(nil)
}

// TestDriverOf: the accessor gives back the Driver NewStore wrapped, and
// nil for a nil Store.
func TestDriverOf(t *testing.T) {
	c := &closer{}
	if d := driver.Of(backends.NewStore(c)); d != c {
		t.Fatalf("driver.Of = %v, want the wrapped driver", d)
	}
	if d := driver.Of(nil); d != nil {
		t.Fatalf("driver.Of(nil) = %v, want nil", d)
	}
}
