// Command sharded spreads a group of shards over workers with package
// lease/shard: each worker is one elector, hence one store session, and
// leads only its share of the shards. A worker that joins takes its share
// by planned handover; one that leaves hands its shards to their new owners
// first.
//
//	go run ./examples/sharded [--store URL] [--shards 120] [--workers 3]
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
	"github.com/leasehold/leasehold/lease/shard"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("sharded", flag.ContinueOnError)
	url := fs.String("store", "", "store URL (default: an in-process etcd)")
	shards := fs.Int("shards", 120, "number of shards in the group")
	workers := fs.Int("workers", 3, "number of workers at the start")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, closeStore, err := exstore.Open(ctx, *url)
	if err != nil {
		return err
	}
	defer closeStore()
	o := newOwners(*shards)
	var ws []*worker
	defer func() {
		for _, w := range ws {
			w.close()
		}
	}()
	start := func(name string) error {
		w, err := startWorker(ctx, store, name, *shards, o)
		if err == nil {
			ws = append(ws, w)
		}
		return err
	}
	for i := range *workers {
		if err := start(fmt.Sprintf("worker-%d", i+1)); err != nil {
			return err
		}
	}
	if err := o.report(ctx, "started", names(ws)); err != nil {
		return err
	}
	if err := start(fmt.Sprintf("worker-%d", len(ws)+1)); err != nil {
		return err
	}
	if err := o.report(ctx, ws[len(ws)-1].name+" joined", names(ws)); err != nil {
		return err
	}
	if err := ws[0].g.Leave(ctx); err != nil {
		return err
	}
	left := ws[0]
	ws = ws[1:]
	left.close()
	return o.report(ctx, left.name+" left", names(ws))
}

// worker is one member of the group: an elector and its Group.
type worker struct {
	name string
	e    *lease.LeaseElector
	g    *shard.Group
	read chan struct{} // closed when its events are all read
}

func startWorker(ctx context.Context, store *backends.Store, name string, shards int, o *owners) (*worker, error) {
	e, err := lease.New(store, lease.Options{TTL: max(2*time.Second, store.Limits().MinTTL), Identity: name})
	if err != nil {
		return nil, err
	}
	g, err := shard.Join(ctx, e, "examples/orders", shard.Options{Shards: shards})
	if err != nil {
		_ = e.Close(ctx)
		return nil, err
	}
	w := &worker{name: name, e: e, g: g, read: make(chan struct{})}
	go func() {
		defer close(w.read)
		for ev := range g.Events() {
			// A server would now serve ev.Shard while ev.Leadership is
			// valid, checking Valid before each write and sending its
			// Token with it.
			o.event(name, ev)
		}
	}()
	return w, nil
}

// close ends the worker: a worker that has not left resigns its shards.
func (w *worker) close() {
	_ = w.g.Close()
	<-w.read
	_ = w.e.Close(context.Background())
}

func names(ws []*worker) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.name
	}
	return out
}
