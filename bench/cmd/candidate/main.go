// Command candidate campaigns for one election with one library on one
// store, prints "leader" on its standard output when it leads, and then
// holds leadership until it is killed. The crash-failover benchmark runs
// it as the leader process and SIGKILLs it.
//
//	candidate -lib leasehold|native|valkeyrie -store etcd|zookeeper|consul \
//	    -endpoints a,b -election NAME -ttl 2s [-lockdelay 1ms] [-serve]
//
// With -serve it takes commands from its standard input, one per line,
// as cand.Remote sends them (see serve), for the hand-off benchmark's
// candidates in processes of their own.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
)

func main() {
	lib := flag.String("lib", "leasehold", "library: leasehold, native or valkeyrie")
	kind := flag.String("store", "etcd", "store: etcd, zookeeper or consul")
	eps := flag.String("endpoints", "", "comma-separated store endpoints")
	election := flag.String("election", "crash", "election name")
	ttl := flag.Duration("ttl", 2*time.Second, "session TTL")
	delay := flag.Duration("lockdelay", 0, "Consul lock-delay (0: the library's default)")
	serve := flag.Bool("serve", false, "take acquire and release commands on standard input (cand.Serve)")
	flag.Parse()
	st := &env.Store{Kind: env.Kind(*kind), Endpoints: strings.Split(*eps, ",")}
	c, err := cand.New(cand.Lib(*lib), st, *election, cand.Opts{TTL: *ttl, LockDelay: *delay})
	if err != nil {
		fmt.Fprintln(os.Stderr, "candidate:", err)
		os.Exit(1)
	}
	if *serve {
		os.Exit(cand.Serve(c, os.Stdin, os.Stdout))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Acquire(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "candidate: acquire:", err)
		os.Exit(1)
	}
	fmt.Println("leader")
	<-ctx.Done() // hold until killed (or, as a bound, two minutes)
}
