// Package driver gives the packages of this module the backends.Driver
// inside a *backends.Store: package lease, the conformance and elector
// suites, the adapters' tests and the benchmarks. Being internal, it keeps
// the driver out of users' reach: they hold the Store, whose only methods
// are Name, Limits and Close.
package driver

import (
	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver/hook"
)

// Of returns the Driver s holds, or nil if s is nil or was not made by
// backends.NewStore.
func Of(s *backends.Store) backends.Driver {
	if s == nil {
		return nil
	}
	d, _ := hook.Driver(s).(backends.Driver)
	return d
}
