package backends

import (
	"io"
	"sync"

	"github.com/leasehold/leasehold/internal/driver/hook"
)

// Store is the portable value an adapter's New returns and lease.New
// takes: a store connection whose Driver only this module's packages
// (package lease first) can reach. Its methods are the few a user calls;
// it is safe for concurrent use. Only NewStore makes a usable Store.
type Store struct {
	d        Driver
	once     sync.Once
	closeErr error // Close's result
}

// NewStore wraps an adapter's Driver in the Store its New returns. It
// is for adapter writers. It panics if d is nil, as a nil Driver is a bug
// in the adapter, not a condition to handle.
func NewStore(d Driver) *Store {
	if d == nil {
		panic("backends: NewStore: the Driver is nil")
	}
	return &Store{d: d}
}

func init() {
	hook.Driver = func(s any) any { return s.(*Store).d }
}

// Name names the store kind, e.g. "etcd" (Capabilities.Name).
func (s *Store) Name() string { return s.d.Capabilities().Name }

// Limits reports the store's bounds, the TTL and value sizes it allows.
// It does no I/O. It keeps the name Limits, not Capabilities, as it
// returns only what a user reads from a store: the bounds to choose
// lease.Options.TTL and a value within. The rest of the store's
// Capabilities, the ways it ends a term, concern package lease alone.
func (s *Store) Limits() Limits { return s.d.Capabilities().Limits }

// Close releases what the adapter owns (ZooKeeper: the connections it
// opened, ending their sessions) if its Driver implements io.Closer, and
// returns nil otherwise: a Store built on a caller's client leaves that
// client to the caller. Close is idempotent: later calls return the first
// call's result. Calls on the Store's electors after Close fail.
func (s *Store) Close() error {
	s.once.Do(func() {
		if c, ok := s.d.(io.Closer); ok {
			s.closeErr = c.Close()
		}
	})
	return s.closeErr
}
