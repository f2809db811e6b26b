// Command leasehold runs leader elections on a store.
//
//	leasehold demo   start an in-process etcd and show an election, a crash
//	                 failover and a fenced resource rejecting a stale leader
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: leasehold <command> [flags]

commands:
  demo    start an in-process etcd and three candidates; kill the leader,
          show the hand-over with increasing fencing tokens, and a guarded
          resource rejecting the stale leader's write
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "demo":
		err = runDemo(ctx, os.Stdout, os.Args[2:])
	case "help", "-h", "--help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "leasehold: unknown command %q\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "leasehold:", err)
		os.Exit(1)
	}
}
