// Package bench runs leasehold side by side with the election and lock
// libraries people use today (etcd's concurrency.Election, Consul's
// api.Lock, go-zookeeper's zk.Lock and valkeyrie's locks) against the same
// etcd, ZooKeeper and Consul containers in one run, and writes the results
// to results/: results.json, results.md and handoff.png.
//
// A run has three phases: the latency scenarios (physical, handoff, herd,
// policies) of the stores at once, taking turns so that one store
// measures at a time while the others pause (internal/turn); sharded and
// shards, one store after another; crash, slow link and idle, the stores
// at once.
//
// Run it with `make bench` (full) or `make bench-quick` (a few seconds per
// store; checks only that every scenario runs). The benchmark is TestBench;
// BENCH_QUICK=1 selects the quick mode and BENCH_OUT the output directory;
// BENCH_DOC names a markdown file (make bench: docs/benchmarks.md) that
// a run of all three stores, full or partial, rewrites whole from every
// run in the output directory (report.Page: each table from the newest
// run that measured it); cmd/benchdoc (make bench-doc) does the same from
// the committed runs without running anything.
// BENCH_SCENARIOS (a comma-separated subset of physical, handoff, crash,
// herd, sharded, shards, slowlink, idle, policies) runs only those
// scenarios, into BENCH_OUT/partial-<scenarios>/. BENCH_HANDOFFS sets the
// hand-offs per series of leasehold and the native peer in the handoff
// scenario (full mode: 200); BENCH_HANDOFF_PROCS=1 runs each of its
// candidates in a process of its own (cmd/candidate -serve, cand.Remote),
// as deployed candidates run, where by default a pair shares the
// benchmark's process; each process takes its own times, by the wall
// clock, so the pipes' latency is in no sample. BENCH_HEAPPROFILE names a
// directory where the sharded scenario writes a heap profile of each of
// its sizes while every election is held (heap-<store>-<m>.pprof; for
// `go tool pprof`), sampling every allocation, which slows the run.
//
// Three diagnostic tests skip unless asked, and measure nothing the page
// reports: TestTrace (BENCH_TRACE: the store calls of leasehold's
// electors in each hand-off), TestZooKeeperHandoffProtocol
// (BENCH_ZKPROTO: a hand-off's store protocol on go-zookeeper alone) and
// TestZooKeeperHandoffWire (BENCH_ZKWIRE: hand-offs split at a proxy on
// the wire, leasehold's beside zk.Lock's).
package bench
