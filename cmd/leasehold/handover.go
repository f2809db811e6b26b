package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/leasehold/leasehold/lease"
)

const handoverUsage = `usage: leasehold handover --store URL --election NAME [--to ID] [--timeout D] [--json]

Asks the election's leader to hand over: to the candidate --to names (its
identity or session), or to the next in succession order without --to.
The request is a candidate record bound to this command's own session, so
it dies with the command; the leader honours it at its next safe point
(leasehold run stops its CMD first). Waits until a new term leads (the
named candidate's, with --to) and prints it as status does, with the new
fencing token. Exits 0 once it leads; 4 if the election has no leader;
1 if no candidate that may lead waits (of that name, with --to), if
another term began first (another request was honoured, or the leader
changed: a leader honours only requests made in its own term), if no new
term led within --timeout, or if the store failed; 2 on a usage error;
128+signal if interrupted. A leader honours the request if it follows its
candidate list: leasehold run does, and so does every leader of a
program using package lease on etcd, ZooKeeper or Consul (one of an
earlier version needs Options.FollowRoster or Preempt).

flags:
`

// handoverFlags are the flags of leasehold handover.
type handoverFlags struct {
	common
	to      string
	timeout time.Duration
	json    bool
}

func (f *handoverFlags) parse(args []string) error {
	fs := flag.NewFlagSet("handover", flag.ContinueOnError)
	f.register(fs)
	fs.StringVar(&f.to, "to", "", "identity or session ID of the candidate to hand over to (default: the next in succession order)")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "give up if no new term leads within this time")
	fs.BoolVar(&f.json, "json", false, "print the new leader as JSON")
	fs.Usage = func() { fmt.Fprint(fs.Output(), handoverUsage); fs.PrintDefaults() }
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: handover takes flags only", fs.Arg(0))
	}
	if err := f.check(); err != nil {
		return err
	}
	if f.timeout <= 0 {
		return fmt.Errorf("--timeout %v: want a duration above 0, e.g. --timeout 1m", f.timeout)
	}
	return nil
}

func runHandover(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var f handoverFlags
	if err := f.parse(args); err != nil {
		return 2, err
	}
	e, closeAll, err := f.open(ctx, stderr)
	if err != nil {
		return 1, err
	}
	defer closeAll()
	hctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	info, err := e.RequestHandover(hctx, f.election, f.to)
	switch {
	case err != nil && ctx.Err() != nil:
		return interruptedCode(ctx), nil
	case errors.Is(err, lease.ErrNoLeader):
		return exitNoLeader, err
	case errors.Is(err, lease.ErrOvertaken):
		return 1, fmt.Errorf("the request was not honoured, and no leader will honour it now: %w", err)
	case err != nil && errors.Is(hctx.Err(), context.DeadlineExceeded):
		return 1, fmt.Errorf("timed out after --timeout %v: %w", f.timeout, err)
	case err != nil:
		return 1, err
	}
	info.Election = f.election
	printInfo(stdout, info, f.json)
	return 0, nil
}
