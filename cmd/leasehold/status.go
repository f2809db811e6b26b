package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/leasehold/leasehold/lease"
)

const statusUsage = `usage: leasehold status --store URL --election NAME [--json]

Prints the election's current leader, its fencing token, its store session
and since when it leads (by the leader's clock). Exits 0 with a leader, 4
without one.

flags:
`

const observeUsage = `usage: leasehold observe --store URL --election NAME [--json]

Prints the election's leader, then every change, including "no leader",
until interrupted.

flags:
`

// exitNoLeader is status's exit code when the election has no leader.
const exitNoLeader = 4

func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var c common
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	c.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() { fmt.Fprint(fs.Output(), statusUsage); fs.PrintDefaults() }
	if err := parse(fs, args); err != nil {
		return 2, err
	}
	if err := c.check(); err != nil {
		return 2, err
	}
	e, closeAll, err := c.open(ctx, stderr)
	if err != nil {
		return 1, err
	}
	defer closeAll()
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	info, err := e.Leader(rctx, c.election)
	if err != nil && !errors.Is(err, lease.ErrNoLeader) {
		return 1, err
	}
	info.Election = c.election
	printInfo(stdout, info, *asJSON)
	if !info.HasLeader() {
		return exitNoLeader, nil
	}
	return 0, nil
}

func runObserve(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var c common
	fs := flag.NewFlagSet("observe", flag.ContinueOnError)
	c.register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object per line")
	fs.Usage = func() { fmt.Fprint(fs.Output(), observeUsage); fs.PrintDefaults() }
	if err := parse(fs, args); err != nil {
		return 2, err
	}
	if err := c.check(); err != nil {
		return 2, err
	}
	e, closeAll, err := c.open(ctx, stderr)
	if err != nil {
		return 1, err
	}
	defer closeAll()
	ch, err := e.Observe(ctx, c.election)
	if err != nil {
		return 1, err
	}
	for info := range ch {
		info.Election = c.election
		printInfo(stdout, info, *asJSON)
	}
	return 0, nil
}

// infoJSON is how status and observe print a LeaderInfo as JSON.
type infoJSON struct {
	Election string    `json:"election"`
	Leader   bool      `json:"leader"`
	Identity string    `json:"identity,omitempty"`
	Token    uint64    `json:"token,omitempty"`
	Session  string    `json:"session,omitempty"`
	Since    time.Time `json:"since"`
}

func printInfo(w io.Writer, info lease.LeaderInfo, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(infoJSON{info.Election, info.HasLeader(), info.Identity, uint64(info.Token), info.Session, info.Since})
		fmt.Fprintln(w, string(b))
		return
	}
	if !info.HasLeader() {
		fmt.Fprintf(w, "%s: no leader\n", info.Election)
		return
	}
	fmt.Fprintf(w, "%s: leader %s token %d session %s since %s\n", info.Election, info.Identity,
		info.Token, info.Session, info.Since.Format(time.RFC3339Nano))
}
