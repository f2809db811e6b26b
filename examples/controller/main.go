// Command controller is a controller that works only while it leads, and
// writes to a resource that checks fencing tokens. Two replicas run in one
// process. Each leader steps down after a while (as in a rolling restart)
// and then, like a process that was paused, sends one late write with its
// old token: the resource rejects it.
//
//	go run ./examples/controller [--store URL] [--for 4s]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/examples/internal/exstore"
	"github.com/leasehold/leasehold/lease"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	url := fs.String("store", "", "store URL, e.g. etcd://127.0.0.1:2379/x (default: an in-process etcd)")
	dur := fs.Duration("for", 4*time.Second, "how long to run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, closeStore, err := exstore.Open(ctx, *url)
	if err != nil {
		return err
	}
	defer closeStore()
	res := newResource()
	defer res.Close()
	ctx, cancel := context.WithTimeout(ctx, *dur)
	defer cancel()
	done := make(chan error, 2)
	for _, name := range []string{"replica-a", "replica-b"} {
		go func() { done <- replica(ctx, store, name, res) }()
	}
	for range 2 {
		if err := <-done; err != nil {
			return err
		}
	}
	fmt.Printf("resource: %d writes accepted, %d stale writes rejected, highest token %d\n",
		res.accepted.Load(), res.rejected.Load(), res.guard.Highest())
	return nil
}

// replica campaigns until ctx ends; each term reconciles for a second,
// steps down, and then sends one late write with the term's token.
func replica(ctx context.Context, store *backends.Store, name string, res *resource) error {
	e, err := lease.New(store, lease.Options{TTL: max(2*time.Second, store.Limits().MinTTL), Identity: name})
	if err != nil {
		return err
	}
	defer e.Close(context.Background())
	for ctx.Err() == nil {
		var token uint64
		err := e.Run(ctx, "examples/controller", func(ctx context.Context, l *lease.Leadership) error {
			token = uint64(l.Token)
			fmt.Printf("%s leads with token %d\n", name, l.Token)
			return reconcile(ctx, l, res, time.Second)
		})
		if err != nil && ctx.Err() == nil {
			return err
		}
		if token != 0 && ctx.Err() == nil {
			time.Sleep(300 * time.Millisecond) // a pause, as a GC or a VM stall would make
			if err := res.write(token, name+" (late)"); err != nil {
				fmt.Printf("%s's late write with token %d: %v\n", name, token, err)
			}
		}
	}
	return nil
}

// reconcile writes to the resource every 100 ms while ctx lasts, for at
// most d; a real controller would watch and act until ctx is done. Right
// before each write it asks l.Valid whether it still leads: after a pause
// of the process, ctx can still look live for a moment after the
// deadline, and Valid cannot. The token covers what remains, the time
// between the check and the write's arrival.
func reconcile(ctx context.Context, l *lease.Leadership, res *resource, d time.Duration) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	stop := time.After(d)
	for {
		if l.Valid() != nil {
			return nil // lost: Run campaigns again
		}
		if err := res.write(uint64(l.Token), l.Identity); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-stop:
			return nil // step down: Run resigns
		case <-tick.C:
		}
	}
}
