package zktest_test

import (
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease/leasetest"
	"github.com/leasehold/leasehold/zookeeper/zktest"
)

// The harnesses are the suites' (checked here, not in the package, so that
// leaseholdtest, which imports the package, builds neither suite).
var (
	_ backendtest.Harness      = (*zktest.Harness)(nil)
	_ backendtest.Connector    = (*zktest.Harness)(nil)
	_ backendtest.ExpiryGracer = (*zktest.Harness)(nil)
	_ backendtest.Layouter     = (*zktest.Harness)(nil)
	_ leasetest.AuthHarness    = (*zktest.AuthHarness)(nil)
)
