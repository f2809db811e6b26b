// Package faults is the fault suite: three candidate processes (see
// ./candidate) campaign for one election on a real store in a container,
// each dialing the store through an in-process toxiproxy proxy of its own,
// and write every 10 ms, while they believe they lead, to a resource fenced
// by a fencing.Guard (served by the test over loopback HTTP) and to a
// guarded store write (backends.GuardedWriter). The suite injects faults
// into the leader, one per cycle, each bounded and healed by itself:
//
//   - cut: the leader's link to the store black-holed for 1.5×TTL;
//   - latency-low / latency-high: latency and jitter on that link, below and
//     above the renewal deadline, for 1.5×TTL;
//   - pause: the leader SIGSTOPped for 1.5×TTL, then SIGCONTed;
//   - kill: the leader SIGKILLed and a replacement started.
//
// Every candidate records its history (package history) on the machine's
// monotonic clock; the suite merges the histories and judges them with
// history.Check: any violation fails the test.
//
// By default (`go test ./integration/faults/`) it runs two cycles of each
// fault on etcd and ZooKeeper and one on Consul (whose minimum TTL is
// 10 s), single-node stores. The environment selects more:
//
//	LEASEHOLD_SOAK_CYCLES=200        fault cycles per backend (kinds rotate)
//	LEASEHOLD_FAULTS_BACKENDS=etcd   a comma-separated subset of etcd,zookeeper,consul
//	LEASEHOLD_FAULTS_REPORT=docs/faults.md   where to write the markdown report
//
// A run also stops starting cycles when the test's deadline (-timeout) is
// near, and reports the cycles it ran. Without Docker or the store images
// the suite skips, and fails under CI=true (integration/stores.Require).
// Source ../shared/testcontainers.env first: test traffic stays on
// loopback.
package faults
