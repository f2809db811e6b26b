package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/leasehold/leasehold/bench/internal/env"
)

// config sizes one run.
type config struct {
	quick bool
	// procs, if set, is the candidate binary, and the hand-off scenario
	// runs each candidate in a process of its own (BENCH_HANDOFF_PROCS).
	procs string
	// physN, handN and valkN: physical samples, hand-offs per series for
	// leasehold and the native peer, and for valkeyrie.
	physN, handN, valkN int
	// crashN and consulCrashN: crash samples per series, all of a store's
	// at once (runCrash: one wait for the TTL, 20–35 s on Consul);
	// consulCrash false skips Consul's crash runs.
	crashN, consulCrashN int
	consulCrash          bool
	// herdNs and herdK: herd sizes and hand-offs per size; herd2K:
	// hand-offs per mode at N = 2, the default against key mode.
	herdNs []int
	herdK  int
	herd2K int
	// shardMs and shardWindow: sharded election counts and the steady-state
	// measurement window.
	shardMs     []int
	shardWindow time.Duration
	// groupN and groupMs: the shards scenario's members and, per store,
	// its shards; groupKill false skips its kill on Consul (whose
	// session TTL is 10 s).
	groupN    int
	groupMs   map[env.Kind]int
	groupKill bool
	// groupSettle is the shards scenario's shard.Options.Settle; 0 is
	// its default, the TTL (10 s on Consul), which quick mode shortens.
	groupSettle time.Duration
	// idleWindow is each idle measurement's window.
	idleWindow time.Duration
	// slowCycles and consulSlowCycles are the slow-link cycles per
	// library, all at once, each on an election of its own; slowHold and slowTail, in TTLs, how long the leader's link
	// is slow and how long losses are counted after; slowSettle the pause
	// before each cycle.
	slowCycles, consulSlowCycles int
	slowHold, slowTail           float64
	slowSettle                   time.Duration
	// policyNs and policyK: the numbers of waiters of issue 13's
	// hand-off runs, and the hand-offs per series at each.
	policyNs []int
	policyK  int
	// scenarios, from BENCH_SCENARIOS (a comma-separated subset of
	// scenarioNames), are the scenarios to run; nil runs them all. A
	// partial run writes only the sections of the document it fills
	// (the policies scenario's, "issue13").
	scenarios map[string]bool
	// stores are the stores to run, from BENCH_STORES (a comma-separated
	// subset of etcd,zookeeper,consul; default all three). A run on a
	// subset is for development: its results cover only those stores.
	stores []env.Kind
}

// loadConfig returns the full configuration, or the quick one when
// BENCH_QUICK is set.
func loadConfig() config {
	c := sizes()
	c.stores = []env.Kind{env.Etcd, env.ZooKeeper, env.Consul}
	if v := os.Getenv("BENCH_STORES"); v != "" {
		c.stores = nil
		for _, k := range strings.Split(v, ",") {
			c.stores = append(c.stores, env.Kind(strings.TrimSpace(k)))
		}
	}
	if v := os.Getenv("BENCH_SCENARIOS"); v != "" {
		c.scenarios = map[string]bool{}
		for _, s := range strings.Split(v, ",") {
			c.scenarios[strings.TrimSpace(s)] = true
		}
	}
	return c
}

// envCount returns the count in the environment variable name, or def if
// it is unset; a value that is not a whole number of at least 1 is an
// error naming the variable.
func envCount(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a whole number of at least 1", name, v)
	}
	return n, nil
}

// scenarioNames are the scenarios BENCH_SCENARIOS may name.
var scenarioNames = []string{"physical", "handoff", "crash", "herd", "sharded", "shards", "slowlink", "idle", "policies"}

// scenarioList returns the scenarios of a partial run in scenarioNames'
// order; nil for a run of them all.
func (c config) scenarioList() []string {
	var l []string
	for _, n := range scenarioNames {
		if c.scenarios != nil && c.scenarios[n] {
			l = append(l, n)
		}
	}
	return l
}

// runs reports whether the run includes scenario name.
func (c config) runs(name string) bool { return c.scenarios == nil || c.scenarios[name] }

// sizes returns the full sizes, or the quick ones when BENCH_QUICK is set.
func sizes() config {
	if os.Getenv("BENCH_QUICK") != "" {
		return config{quick: true, physN: 5, handN: 5, valkN: 3, crashN: 1, herdNs: []int{10}, herdK: 2, herd2K: 4,
			shardMs: []int{1, 100}, shardWindow: time.Second, idleWindow: time.Second,
			groupN: 3, groupMs: map[env.Kind]int{env.Etcd: 100, env.ZooKeeper: 100, env.Consul: 100}, groupSettle: 500 * time.Millisecond,
			slowCycles: 1, consulSlowCycles: 1, slowHold: 1, slowTail: 0.25, slowSettle: time.Second,
			policyNs: []int{2, 5}, policyK: 2}
	}
	return config{physN: 200, handN: 200, valkN: 50, crashN: 10, consulCrashN: 6, consulCrash: true,
		herdNs: []int{10, 100, 1000}, herdK: 15, herd2K: 100, shardMs: []int{1, 100, 10000}, shardWindow: 5 * time.Second,
		// M = 10,000 on etcd and ZooKeeper (about 1 minute each on
		// 2026-11-30). Consul's is 1,000 (76 s; its TTL and Settle are
		// 10 s): at 10,000 a join took 174 s to balance, every member's
		// blocking query listing the whole prefix at each change.
		groupN: 10, groupMs: map[env.Kind]int{env.Etcd: 10000, env.ZooKeeper: 10000, env.Consul: 1000}, groupKill: true,
		idleWindow: 20 * time.Second, slowCycles: 5, consulSlowCycles: 3, slowHold: 2.5, slowTail: 1, slowSettle: 2 * time.Second,
		// policyK 100 and herd2K 100 (were 200 and 150) take about 2.5 min
		// off the three stores' run (2026-11-30); a p99 of 100 samples is
		// their 2nd largest, the true p99 above the max with 37%
		// probability (the method says so).
		policyNs: []int{2, 5}, policyK: 100}
}
