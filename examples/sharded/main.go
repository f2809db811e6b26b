// Command sharded spreads N shards over workers: each worker campaigns for
// every shard over ONE store session, so the session's single heartbeat
// serves all the shards it leads. When a worker stops, the others take its
// shards over.
//
//	go run ./examples/sharded [--store URL] [--shards 100] [--workers 3]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"sync"
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
	fs := flag.NewFlagSet("sharded", flag.ContinueOnError)
	url := fs.String("store", "", "store URL (default: an in-process etcd)")
	shards := fs.Int("shards", 100, "number of shards (elections)")
	workers := fs.Int("workers", 3, "number of workers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, closeStore, err := exstore.Open(ctx, *url)
	if err != nil {
		return err
	}
	defer closeStore()
	o := &owners{by: map[int]string{}}
	ws := make([]*worker, *workers)
	for i := range ws {
		if ws[i], err = startWorker(store, fmt.Sprintf("worker-%d", i+1), *shards, o); err != nil {
			return err
		}
	}
	if err := o.await(ctx, *shards, "", 30*time.Second); err != nil {
		return err
	}
	fmt.Println("all shards owned:", o.counts())
	ws[0].stop()
	if err := o.await(ctx, *shards, ws[0].name, 30*time.Second); err != nil {
		return err
	}
	fmt.Printf("after %s stopped: %v\n", ws[0].name, o.counts())
	for _, w := range ws[1:] {
		w.stop()
	}
	return nil
}

// worker campaigns for every shard on one elector, hence one session.
type worker struct {
	name   string
	e      *lease.LeaseElector
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startWorker(store *backends.Store, name string, shards int, o *owners) (*worker, error) {
	e, err := lease.New(store, lease.Options{TTL: max(2*time.Second, store.Limits().MinTTL), Identity: name})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &worker{name: name, e: e, cancel: cancel}
	for s := range shards {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			_ = e.Run(ctx, fmt.Sprintf("examples/shards/%d", s), func(ctx context.Context, l *lease.Leadership) error {
				o.set(s, name)
				<-ctx.Done() // serve the shard until leadership ends (a server writing for it would check l.Valid before each write)
				o.clear(s, name)
				return nil
			})
		}()
	}
	return w, nil
}

// stop ends the worker: its shards are resigned and go to the others.
func (w *worker) stop() {
	w.cancel()
	w.wg.Wait()
	_ = w.e.Close(context.Background())
}
