package etcd

import (
	"github.com/leasehold/leasehold/backends"
	idriver "github.com/leasehold/leasehold/internal/driver"
)

// Driver is the driver a Store from New holds, for the package's
// external tests.
type Driver = backends.Driver

// DriverOf returns the driver of a Store New returned.
func DriverOf(s *backends.Store) Driver { return idriver.Of(s) }
