package report

import (
	"strings"
	"testing"
)

// TestGoals14 renders issue 14's goal rows from made-up results: each
// verdict follows its criterion, and a store with no 10,000 run is "not
// measured".
func TestGoals14(t *testing.T) {
	r := &Results{Stores: []*Store{
		{Name: "etcd", Sharded: []Sharded{
			{M: 1, AcquireSeconds: 0.01, RequestsPerSec: 1.4},
			{M: 100, AcquireSeconds: 0.1, Goroutines: 40, Conns: 1},
			{M: 10000, AcquireSeconds: 4, RequestsPerSec: 1.6, HeapBytesPerElect: 3000, Goroutines: 45, Conns: 1}},
			Idle:     []Idle{{Lib: "leasehold", LeaderPerMin: 90, CandidatePerMin: 30}, {Lib: "native", Peer: "p", LeaderPerMin: 57, CandidatePerMin: 30}},
			SlowLink: []SlowLink{{Lib: "leasehold", LatencyMs: 667, BoundMs: 740, Cycles: 5}, {Lib: "native", Peer: "p", Cycles: 5, Losses: 1}}},
		{Name: "consul", Sharded: []Sharded{
			{M: 1, AcquireSeconds: 0.01, RequestsPerSec: 0.4},
			{M: 100, AcquireSeconds: 0.1, Goroutines: 300, Conns: 100},
			{M: 10000, AcquireSeconds: 9, RequestsPerSec: 0.2, HeapBytesPerElect: 15000, Goroutines: 30000, Conns: 10000, ConnsBefore: 3}}},
		{Name: "zookeeper"},
	}}
	g := Goals(r)
	for _, want := range []string{
		"| 10,000 elections: Go heap ≤ 4 KiB per election | etcd | 3000 B | met |",
		"| goroutines: growth M=100→10,000 < 1 per 100 elections | etcd | 40 → 45 (+5, limit +99) | met |",
		"| idle leader req/min ≤ native's | etcd | 90 / 57 (p) = 1.58× | **missed** |",
		"| idle waiter req/min ≤ native's | etcd | 30 / 30 (p) = 1.00× | met |",
		"| slow link: leasehold leader losses = 0 at latency < bound | etcd | 0 of 5 cycles lost (p: 1 of 5); latency 667 ms, bound 740 ms | met |",
		"| 10,000 elections: acquire all ≤ 2× etcd's | consul | 9.00 / 4.00 s = 2.25× | **missed** |",
		"| connections: the elector's ≤ 5 at M=10,000, growth M=100→10,000 < 1 per 100 elections | consul | 100 → 10000 (9997 the elector's) | **missed** |",
		"| 10,000 elections: Go heap ≤ 4 KiB per election | zookeeper | not measured | – |",
	} {
		if !strings.Contains(g, want) {
			t.Errorf("goals lack %q; got:\n%s", want, g)
		}
	}
	if strings.Contains(g, "acquire all ≤ 2× etcd's | etcd") {
		t.Errorf("etcd, the reference, has an acquisition goal row:\n%s", g)
	}
}
