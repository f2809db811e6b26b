package consultest_test

import (
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/lease/leasetest"
)

// The harnesses are the suites' (checked here, not in the package, so that
// leaseholdtest, which imports the package, builds neither suite).
var (
	_ backendtest.Harness      = (*consultest.Harness)(nil)
	_ backendtest.Connector    = (*consultest.Harness)(nil)
	_ backendtest.ExpiryGracer = (*consultest.Harness)(nil)
	_ backendtest.Layouter     = (*consultest.Harness)(nil)
	_ leasetest.AuthHarness    = (*consultest.AuthHarness)(nil)
)
