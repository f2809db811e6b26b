package etcdtest_test

import (
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/lease/leasetest"
)

// The harnesses are the suites' (checked here, not in the package, so that
// leaseholdtest, which imports the package, builds neither suite).
var (
	_ backendtest.Harness      = (*etcdtest.Harness)(nil)
	_ backendtest.Connector    = (*etcdtest.Harness)(nil)
	_ backendtest.ExpiryGracer = (*etcdtest.Harness)(nil)
	_ backendtest.Layouter     = (*etcdtest.Harness)(nil)
	_ leasetest.AuthHarness    = (*etcdtest.AuthHarness)(nil)
)
