package lease_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/lease"
)

// newStore starts an in-process etcd for the examples; an application
// passes its own *clientv3.Client to etcd.New instead.
func newStore() (*backends.Store, func()) {
	srv, err := embedetcd.Start()
	if err != nil {
		log.Fatal(err)
	}
	cli, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	store, err := etcd.New(cli, etcd.Options{Prefix: "/example/"})
	if err != nil {
		log.Fatal(err)
	}
	return store, func() { cli.Close(); srv.Close() }
}

func ExampleLeaseElector_Campaign() {
	store, stop := newStore()
	defer stop()
	e, err := lease.New(store, lease.Options{TTL: 2 * time.Second, Identity: "worker-1"})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(context.Background())

	ctx := context.Background()
	l, err := e.Campaign(ctx, "jobs/scheduler")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("leading as", l.Identity, "with a fencing token:", l.Token > 0)
	// ... act while l.Context() is not done, sending l.Token with each write ...
	if err := l.Resign(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("resigned:", errors.Is(l.Err(), lease.ErrResigned))
	// Output:
	// leading as worker-1 with a fencing token: true
	// resigned: true
}

func ExampleLeaseElector_Run() {
	store, stop := newStore()
	defer stop()
	e, err := lease.New(store, lease.Options{TTL: 2 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(context.Background())

	save := func(job string, token fencing.Token) { fmt.Println("saved job", job) }
	ctx, cancel := context.WithCancel(context.Background())
	err = e.Run(ctx, "jobs/scheduler", func(ctx context.Context, l *lease.Leadership) error {
		fmt.Println("started leading")
		for _, job := range []string{"a", "b"} { // a real fn works until ctx is done
			if err := l.Valid(); err != nil { // right before each write
				return err
			}
			save(job, l.Token) // send the token with every write
		}
		cancel() // here the process is told to stop
		<-ctx.Done()
		fmt.Println("stopped leading")
		return nil
	})
	fmt.Println("Run returned:", err)
	// Output:
	// started leading
	// saved job a
	// saved job b
	// stopped leading
	// Run returned: context canceled
}

// A leader checks Valid immediately before each write: unlike the
// context, it says no at once after a pause of the process past the
// holder's deadline. The token covers the window between the check and
// the write's arrival.
func ExampleLeadership_Valid() {
	store, stop := newStore()
	defer stop()
	e, err := lease.New(store, lease.Options{TTL: 2 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(context.Background())

	ctx := context.Background()
	l, err := e.Campaign(ctx, "jobs/valid")
	if err != nil {
		log.Fatal(err)
	}
	write := func(token uint64) { fmt.Println("write with token > 0:", token > 0) }
	if err := l.Valid(); err == nil {
		write(uint64(l.Token))
	}
	_ = l.Resign(ctx)
	err = l.Valid()
	fmt.Println("after Resign:", errors.Is(err, lease.ErrLost))
	// Output:
	// write with token > 0: true
	// after Resign: true
}

func ExampleLeaseElector_Observe() {
	store, stop := newStore()
	defer stop()
	candidate, err := lease.New(store, lease.Options{TTL: 2 * time.Second, Identity: "worker-1"})
	if err != nil {
		log.Fatal(err)
	}
	defer candidate.Close(context.Background())
	observer, err := lease.New(store, lease.Options{TTL: 2 * time.Second}) // it needs no session
	if err != nil {
		log.Fatal(err)
	}
	defer observer.Close(context.Background())

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes, err := observer.Observe(ctx, "jobs/scheduler")
	if err != nil {
		log.Fatal(err)
	}
	show := func(info lease.LeaderInfo) {
		if info.Err != nil { // the store refused to let us read; the channel is closed
			log.Fatal(info.Err)
		}
		if info.HasLeader() {
			fmt.Println("leader:", info.Identity)
		} else {
			fmt.Println("no leader")
		}
	}
	show(<-changes)
	l, err := candidate.Campaign(ctx, "jobs/scheduler")
	if err != nil {
		log.Fatal(err)
	}
	show(<-changes)
	if err := l.Resign(ctx); err != nil {
		log.Fatal(err)
	}
	show(<-changes)
	// Output:
	// no leader
	// leader: worker-1
	// no leader
}

// New checks the options against the store's limits at once, so a unit
// mistake fails here rather than at the first store call. Zero fields take
// their defaults, derived from the TTL.
func ExampleNew() {
	store, stop := newStore()
	defer stop()

	_, err := lease.New(store, lease.Options{TTL: 2}) // 2 ns, not 2 s
	fmt.Println(errors.Is(err, lease.ErrInvalidOption))

	e, err := lease.New(store, lease.Options{TTL: 6 * time.Second, Identity: "worker-1"})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(context.Background())
	o := e.Options()
	fmt.Println("renew every", o.RenewInterval, "and stop", o.SafetyMargin, "early")
	// Output:
	// true
	// renew every 2.22s and stop 1.5s early
}

// By default, on a store with a queue, a waiting candidate takes a place in
// line and watches only the entry ahead of it, so a release wakes one
// waiter, not all of them. Leadership and tokens are as in key mode
// (Options.Wait: WaitKey), where every waiter watches the leader key.
func ExampleWaitMode() {
	store, stop := newStore()
	defer stop()
	newElector := func(id string) *lease.LeaseElector {
		e, err := lease.New(store, lease.Options{TTL: 2 * time.Second, Identity: id})
		if err != nil {
			log.Fatal(err)
		}
		return e
	}
	first, second := newElector("worker-1"), newElector("worker-2")
	defer first.Close(context.Background())
	defer second.Close(context.Background())

	ctx := context.Background()
	l1, err := first.Campaign(ctx, "jobs/scheduler")
	if err != nil {
		log.Fatal(err)
	}
	won := make(chan *lease.Leadership)
	go func() {
		l, err := second.Campaign(ctx, "jobs/scheduler") // waits in line
		if err != nil {
			log.Fatal(err)
		}
		won <- l
	}()
	fmt.Println("wait mode:", second.Options().Wait)
	fmt.Println("leader:", l1.Identity)
	_ = l1.Resign(ctx)
	l2 := await(won, "worker-2 leads")
	fmt.Println("leader:", l2.Identity, "with a higher token:", l2.Token > l1.Token)
	// Output:
	// wait mode: queue
	// leader: worker-1
	// leader: worker-2 with a higher token: true
}

// GuardedPut writes to the store only while this term's leader key still
// holds the leadership's token: the store itself refuses the write of a term
// that has ended, however late it arrives.
func ExampleLeadership_GuardedPut() {
	store, stop := newStore()
	defer stop()
	e, err := lease.New(store, lease.Options{TTL: 2 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(context.Background())

	ctx := context.Background()
	l, err := e.Campaign(ctx, "jobs/scheduler")
	if err != nil {
		log.Fatal(err)
	}
	err = l.GuardedPut(ctx, "jobs/last-run", []byte("batch 42"))
	fmt.Println("while leading:", err)
	_ = l.Resign(ctx)
	err = l.GuardedPut(ctx, "jobs/last-run", []byte("batch 43"))
	fmt.Println("after Resign:", errors.Is(err, lease.ErrLost))
	// Output:
	// while leading: <nil>
	// after Resign: true
}
