// Package leaseholdtest runs a real store for the tests of code that uses
// leasehold, and gives those tests the faults a leader meets: a cut link,
// a session the store ends. Only tests import it.
//
// Etcd starts an in-process etcd server, with no Docker and no binary to
// install; Container starts etcd, ZooKeeper or Consul in containers, one
// server or three. Either returns a Server, whose Store is ready for
// lease.New and whose cleanup is registered on the test:
//
//	func TestOnlyTheLeaderPublishes(t *testing.T) {
//		srv := leaseholdtest.Etcd(t)
//		a, b := srv.Connect(t), srv.Connect(t) // one link per elector
//		ea, _ := lease.New(a.Store, lease.Options{TTL: 2 * time.Second})
//		eb, _ := lease.New(b.Store, lease.Options{TTL: 2 * time.Second})
//		go ea.Run(ctx, "reports", publish) // the code under test
//		first := leaseholdtest.WaitLeader(t, ea, "reports", 10*time.Second)
//		go eb.Run(ctx, "reports", publish)
//
//		a.Cut()                            // a's host crashes...
//		srv.ExpireSession(t, first.Session) // ...and the store notices at once
//		next := leaseholdtest.WaitLeader(t, eb, "reports", 10*time.Second)
//		// next.Token > first.Token: the fencing token rose with the term
//	}
//
// The whole test is in this package's example_user_test.go.
//
// # Faults
//
//   - Link.Cut cuts one elector's connections to the store and refuses new
//     ones, as a crash of its host or a network cut would; Link.Heal lets
//     it reconnect. The store keeps the elector's session until its TTL
//     runs out.
//   - Server.ExpireSession ends a session in the store now, as if its TTL
//     had run out: its leader key goes, and the next candidate can take it
//     at once. With Cut first, it is a holder that crashed without
//     resigning; alone, the holder hears that its session is gone.
//
// # Reading the election
//
// Server.Leader reads an election's leader and fencing token; WaitLeader
// waits, with a deadline, until a given elector holds the key.
//
// # Docker, skips and CI
//
// Container needs a Docker engine and nothing else: no variable is needed
// where the engine runs on the test's machine and a registry is within
// reach. testcontainers-go finds the engine and the host of the
// containers' published ports as it always does, pulls a missing image,
// and runs its reaper; the kit also removes its containers when the test
// ends. Where the published ports are not at the host it detects (tests
// inside a container, a remote engine), set TESTCONTAINERS_HOST_OVERRIDE;
// where no registry is reachable, load the image yourself or name one you
// have in LEASEHOLD_ETCD_IMAGE, LEASEHOLD_ZOOKEEPER_IMAGE or
// LEASEHOLD_CONSUL_IMAGE.
//
// With no engine, or with an image that is neither there nor pulled, the
// test is skipped with a message that says what to do (`docker pull` the
// image, the image variable, TESTCONTAINERS_HOST_OVERRIDE). Under CI=true
// (which most CI services set) it fails instead: a CI run without Docker
// would otherwise pass with its container tests skipped. A store that
// starts but does not serve always fails the test, with the same advice.
// Etcd needs no Docker and never skips.
//
// # Dependencies
//
// Importing leaseholdtest builds, besides leasehold itself: the embedded
// etcd server (go.etcd.io/etcd/server/v3), for Etcd; testcontainers-go
// with its etcd and Consul modules and the Docker client, for Container;
// the store clients the adapters use (etcd's clientv3, go-zookeeper/zk,
// hashicorp/consul/api), to connect; and the store harnesses etcdtest,
// zktest and consultest, which cut a client's link and end sessions. It
// builds none of leasehold's own suites (backendtest, leasetest, the
// integration, fault and benchmark suites), which its imports_test.go
// checks.
package leaseholdtest
