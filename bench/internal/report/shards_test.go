package report

import (
	"strings"
	"testing"

	"github.com/leasehold/leasehold/bench/internal/stat"
)

// TestShardsGoals renders the shards scenario's goals and tables from
// made-up results: each verdict follows its criterion, Consul has no
// takeover goal, and a skipped kill says so.
func TestShardsGoals(t *testing.T) {
	g := ShardGroup{N: 10, M: 1100, RoundTripMs: 2, ColdSeconds: 3, JoinMoves: 110, JoinToNew: 100, JoinBalanceSeconds: 3, JoinMaxUnownedMs: 8, KillSeconds: 3.5}
	r := &Results{Mode: "full", Scenarios: []string{"shards"}, Stores: []*Store{
		{Name: "etcd", TTL: "2s", Shards: []ShardGroup{g}, Policies: []Policy{{N: 2, Planned: Latency{Summary: stat.Summary{P99: 6}}}}},
		{Name: "consul", TTL: "10s", Shards: []ShardGroup{{N: 10, M: 1100, ColdSeconds: 3, JoinMoves: 122, JoinBalanceSeconds: 3, KillSkipped: "quick"}}},
		{Name: "zookeeper", TTL: "2s", Shards: []ShardGroup{{N: 10, M: 1100}}},
	}}
	md := ShardsMarkdown(r)
	for _, want := range []string{
		"| shards: a join moves ≤ 1.1× M/(N+1) (N=10, M=1100) | etcd | 110 / 100 = 1.10× | met |",
		"| shards: longest unowned on a join ≤ one planned handover (p99) | etcd | 8.0 / 6.0 ms (N=2 waiters) = 1.33× | **missed** |",
		"| shards: a lost member's shards all owned ≤ TTL + 1 s | etcd | 3.50 s (TTL 2s) | **missed** |",
		"| shards: a join moves ≤ 1.1× M/(N+1) (N=10, M=1100) | consul | 122 / 100 = 1.22× | **missed** |",
		"| shards: longest unowned on a join ≤ one planned handover (p99) | consul | not measured | – |",
		"| 110 (100) | 1.10× |",
		"skipped: quick",
		"| shards: a join moves ≤ 1.1× M/(N+1) (N=10, M=1100) | zookeeper | not measured | – |",
		"| shards: a lost member's shards all owned ≤ TTL + 1 s | zookeeper | not measured | – |",
		"| zookeeper | 2s |  | 10 | 1100 | 0.00 | failed: see the errors |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	if strings.Contains(md, "all owned ≤ TTL + 1 s | consul") {
		t.Errorf("a takeover goal for Consul in\n%s", md)
	}
}
