package consul_test

import (
	"os"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/leasetest"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// agentEnv names the variable holding the HTTP address of the Consul agent
// the suites run against.
const agentEnv = "LEASEHOLD_CONSUL_ADDR"

// harness returns a harness on the agent named by agentEnv. Without that
// variable it starts a dev agent in a container through
// leaseholdtest.Container, which skips the test where Docker or the image
// is missing, or fails it when CI=true. The agent keeps its default limits
// (200 connections per client).
func harness(t *testing.T) *consultest.Harness {
	t.Helper()
	if addr := os.Getenv(agentEnv); addr != "" {
		return &consultest.Harness{Addr: addr}
	}
	return &consultest.Harness{Addr: leaseholdtest.Container(t, "consul", leaseholdtest.ContainerOptions{}).Endpoints[0]}
}

// TestAgent runs the suites and the Consul-specific tests on one agent.
func TestAgent(t *testing.T) {
	h := harness(t)
	t.Run("Conformance", func(t *testing.T) { backendtest.RunConformanceTests(t, h) })
	t.Run("Elector", func(t *testing.T) {
		leasetest.RunElectorTests(t, h, lease.Options{TTL: 10 * time.Second})
	})
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *consultest.Harness)
	}{
		{"SessionEntry", testSessionEntry},
		{"InvalidationDeletesKey", testInvalidationDeletesKey},
		{"LockDelayIsNotKeyExists", testLockDelayIsNotKeyExists},
		{"CloseDeletesBeforeDestroy", testCloseDeletesBeforeDestroy},
		{"ForeignFlags", testForeignFlags},
		{"TakesUnlockedKey", testTakesUnlockedKey},
		{"APILockHoldsOffElector", testAPILockHoldsOffElector},
		{"ElectorHoldsOffAPILock", testElectorHoldsOffAPILock},
		{"WatchStaleView", testWatchStaleView},
		{"WatchAfterLastClose", testWatchAfterLastClose},
		{"WatchThousand", testWatchThousand},
		{"WatchKeyed", testWatchKeyed},
		{"WatchHeap", testWatchHeap},
		{"ProclaimKeepsLock", testProclaimKeepsLock},
		{"ProclaimWakesWaiters", testProclaimWakesWaiters},
		{"ProclaimRefused", testProclaimRefused},
		{"ProclaimKeepsAPILockWaiting", testProclaimKeepsAPILockWaiting},
		{"HandOverPasses", testHandOverPasses},
		{"PassToEndedCampaign", testPassToEndedCampaign},
		{"RosterRecords", testRosterRecords},
		{"RosterNested", testRosterNested},
		{"CallsBounded", testCallsBounded},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, h) })
	}
}
