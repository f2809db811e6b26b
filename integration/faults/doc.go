// Package faults is the fault suite: three candidate processes (see
// ./candidate) campaign for one election on a real store in a container,
// each dialing the store through an in-process toxiproxy proxy of its own,
// and write every 10 ms, while they believe they lead, to a resource fenced
// by a fencing.Guard (served by the test over loopback HTTP) and to a
// guarded store write (lease.Leadership.GuardedPut). Right before each
// write a candidate checks lease.Leadership.Valid, and stops acting when
// it says no. The suite injects faults into the leader, one per cycle,
// each bounded and healed by itself:
//
//   - cut: the leader's link to the store black-holed for 1.5×TTL;
//   - latency-low / latency-high: latency on that link's store→client
//     direction, 0.7× (jitter 2.5 % of the bound) and 1.5× (jitter 5 %)
//     lease.Options.LatencyBound, for 1.5×TTL. Under latency-low the leader must keep its
//     leadership: a loss fails the run; under latency-high it gives up,
//     and must stop before its successor starts (check b);
//   - pause: the leader SIGSTOPped for 1.5×TTL, then SIGCONTed: it must
//     make no write after its successor began (history check e), though
//     its context is cancelled only once the elector's goroutine runs;
//   - kill: the leader SIGKILLed and a replacement started.
//
// A second run per backend (subtest "<backend>-store") does the same on a
// 3-node store cluster (integration/stores.Cluster), every candidate
// dialing every node, each through a proxy of its own, and injects the
// store-side faults, rotating:
//
//   - store-kill: the store's own leader node SIGKILLed (docker kill),
//     started again after 1.5×TTL;
//   - partition: one node (the one the election leader's client starts
//     on) cut from the cluster network (docker network disconnect) for
//     1.5×TTL, then reconnected;
//   - isolate: the same node cut from its peers only (iptables drops in
//     its network namespace), its clients still reaching it, for 1.5×TTL;
//   - store-restart: every node stopped at once (docker stop), started
//     again after 1.5×TTL.
//
// After each store fault heals, the suite waits for every node to serve
// before the next cycle. Check (d) allows, on top of TTL + renewal
// interval + the store's recovery, the store's own recovery from the
// fault (backend.storeRecovery, backend.restartRecovery).
//
// Odd-numbered candidates (c1, c3, ...) wait in the ordered queue
// (lease.WaitQueue), the others watch the leader key, so every run
// mixes both modes in one election.
//
// The candidates have mixed priorities (lease.Options.Priority), most
// with Preempt, all with FollowRoster, and the schedule adds policy
// events (policy_test.go): "handover" (the leader's Leadership.HandOver
// to a named candidate or the next in line), "request" (an outside
// elector's RequestHandover, bounded) and "priority-join" (a candidate of
// a priority above all joins; a leader with Preempt hands over to it; if
// the leader loses its term first, the key goes to the head of the line,
// whatever its priority, as docs/policies.md says, and that leader, if it
// has Preempt, hands over to the joined one within the same bound).
// One runs in every soak cycle, after the fault healed (a store fault's
// once the store's own recovery allowance has passed too: a store still
// electing its leader is a fault) or while it is active, rotating so
// that each meets every fault kind; the default run has one of each in
// its etcd and ZooKeeper client-side runs. Before each soak cycle, and
// each policy event, the suite waits for a due preemption. The safety
// checks are the same; a policy
// event that goes otherwise than its policy says with no fault active (no
// new leader within TTL, another than the named one, the
// old leader taking the key back, but for a leader that lost its term
// first, whose key went by failover) is a policy miss: it fails a soak at
// its end and is logged in the default run (LEASEHOLD_FAULTS_POLICY_MISS
// =fail or log overrides). The report counts each event's outcomes and
// the candidates' handovers by cause.
//
// The report (LEASEHOLD_FAULTS_REPORT) is written whole, stamped with the
// date and commit: the method, the fault kinds, the checks, a table per
// run (a row per fault kind and policy event), the shard groups and the
// timeline; nothing by hand.
//
// Shard groups (shards_test.go, subtests "<backend>-shards") run the same
// faults on a group of package lease/shard: 4 member processes (the
// candidate program with -shards), each one elector on proxies of its own,
// join one group of 32 shards and, while each holds a shard, write every
// 200 ms to that shard's fenced resource (a fencing.Guard per shard),
// checking the shard's Leadership.Valid first. Each cycle waits for the
// group to be balanced, then aims its fault at the member holding the most
// shards. On top of the client-side kinds (and, in mixed mode, the store
// kinds) come the group's own:
//
//   - member-join: one more member joins;
//   - member-leave: the member leaves gracefully (SIGTERM: Group.Leave,
//     its shards handed over);
//   - member-crash: the member's links are cut and it is killed: it
//     leaves nothing and its session expires; after 1.5×TTL a new member
//     joins in its place.
//
// history.CheckShards judges checks a to e per shard (d: the shard owned
// again within TTL + renew interval + the store's recovery after each
// heal) and f: within that bound + 2×TTL (Settle, the TTL, and the
// handovers) after each heal, every shard owned by one live member and
// each live member owning ⌊32/N⌋ or ⌈32/N⌉ of them. The report adds a
// line per group: moves, the longest time a shard had no owner, time to
// balance. By default a short run (8 cycles: each kind once) runs on
// single-node etcd and ZooKeeper; Consul's (TTL 10 s) only on request or
// in a soak. In mixed mode each backend's group runs on a 3-node cluster
// of its own, beside the election's, through every kind.
//
// Every candidate records its history (package history) on the machine's
// monotonic clock; the suite merges the histories and judges them with
// history.Check: any violation fails the test.
//
// Every run also draws its timeline, as Jepsen's do: one PNG (gonum/plot,
// a test-only dependency) with a panel per run, a row per candidate, its
// leaderships as bars labelled by fencing token, the faults as shaded
// windows labelled by kind, and any violation as a red line. A panel shows
// the whole run, or, for a longer one (a soak), a stretch of two cycles of
// each kind: from the start, or around the first violation. The picture
// goes next to the report (LEASEHOLD_FAULTS_REPORT=docs/faults.md:
// docs/faults.png, linked from the report), or, without a report, into a
// new temporary directory; the test log says where.
//
// By default (`go test ./integration/faults/`) it runs two cycles of each
// client-side fault on etcd and ZooKeeper and one on Consul (whose minimum
// TTL is 10 s), single-node stores, and one cycle of each store fault on
// every backend. The environment selects more:
//
//	LEASEHOLD_SOAK_CYCLES=200        fault cycles per backend and per run (kinds rotate)
//	LEASEHOLD_FAULTS_MIXED=1         every kind, client and store, rotating on one
//	                                 3-node cluster per backend, the backends in
//	                                 parallel (make soak)
//	LEASEHOLD_SOAK_PARALLEL=3        how many of those runs go at once, the longest first
//	                                 (with go test -parallel at least the number of runs)
//	LEASEHOLD_FAULTS_STORE=off       no store-fault runs (or a comma-separated
//	                                 subset of the backends; unset: all)
//	LEASEHOLD_FAULTS_BACKENDS=etcd   a comma-separated subset of etcd,zookeeper,consul
//	LEASEHOLD_FAULTS_KINDS=pause     a comma-separated subset of the fault kinds (unset: all;
//	                                 member-join, member-leave, member-crash: shard groups only)
//	LEASEHOLD_FAULTS_CHECK=err       candidates check Leadership.Err before each write, not
//	                                 Valid: a pause then lets writes through after a
//	                                 successor began, and check e fails the run (the
//	                                 suite's proof that it can fail)
//	LEASEHOLD_FAULTS_REPORT=docs/faults.md   where to write the markdown report (and
//	                                 the timeline, docs/faults.png)
//	LEASEHOLD_FAULTS_KEEP=/tmp/dir   keep every run's histories and candidate logs there
//	                                 (unset: a failed run's are kept under os.TempDir)
//	LEASEHOLD_FAULTS_SHARDS=off      no shard-group runs (or a comma-separated subset of
//	                                 the backends; "only": the shard groups alone, no
//	                                 election runs; unset: etcd and ZooKeeper, or in a
//	                                 soak every selected backend)
//	LEASEHOLD_FAULTS_POLICIES=off    no policy events, all candidates equal, no Preempt
//	LEASEHOLD_FAULTS_POLICY_MISS=log policy misses logged, not failed (fail: failed)
//	LEASEHOLD_FAULTS_DEBUG=1         every run's timeline in the test log, and the
//	                                 candidates log at debug level: every action of their
//	                                 core and every watch answer (see KEEP)
//
// A run also stops starting cycles when the test's deadline (-timeout) is
// near, and reports the cycles it ran. Without Docker or the store images
// the suite skips, and fails under CI=true (integration/stores.Require).
// Source ../shared/testcontainers.env first: test traffic stays on
// loopback.
package faults
