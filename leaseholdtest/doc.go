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
package leaseholdtest
