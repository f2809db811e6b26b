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

Prints the election's current leader, its fencing token, its store session,
since when it leads (by the leader's clock) and the value it proclaims;
then the candidates in succession order (the leader, then the order in
which the others would lead), each with its priority, state (leader,
waiting, damped, no-lead, or a handover request) and labels. --json prints one object: the leader's
fields as observe prints them, and "candidates". On a store that keeps no
candidate list the candidates are left out, with a note on stderr. Exits 0
with a leader, 4 without one.

flags:
`

const observeUsage = `usage: leasehold observe --store URL --election NAME [--json]

Prints the election's leader, then every change, including "no leader",
until a signal stops it: SIGTERM, SIGINT, SIGHUP or SIGQUIT, with exit
128+signal (143, 130, 129, 131). Exits 1 at once if the store refuses for
want of rights or credentials.

flags:
`

// exitNoLeader is status's exit code when the election has no leader.
const exitNoLeader = 4

// query is the flags of status and observe.
type query struct {
	common
	json bool
}

// open parses args and opens the elector; code is the exit code on error.
// extra registers a command's own flags.
func (q *query) open(ctx context.Context, name, usage string, args []string, stderr io.Writer, extra ...func(*flag.FlagSet)) (*lease.LeaseElector, func(), int, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	q.register(fs)
	fs.BoolVar(&q.json, "json", false, "print JSON, one object per line")
	for _, f := range extra {
		f(fs)
	}
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage); fs.PrintDefaults() }
	if err := parse(fs, args); err != nil {
		return nil, nil, 2, err
	}
	q.query = true
	if err := q.check(); err != nil {
		return nil, nil, 2, err
	}
	e, closeAll, err := q.common.open(ctx, stderr)
	if err != nil {
		return nil, nil, 1, err
	}
	return e, closeAll, 0, nil
}

func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var q query
	e, closeAll, code, err := q.open(ctx, "status", statusUsage, args, stderr)
	if err != nil {
		return code, err
	}
	defer closeAll()
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	info, err := e.Leader(rctx, q.election)
	if err != nil && !errors.Is(err, lease.ErrNoLeader) {
		return 1, err
	}
	info.Election = q.election
	cs, listed, err := candidates(rctx, e, q.election, stderr)
	if err != nil {
		printInfo(stdout, info, q.json)
		return 1, err
	}
	printStatus(stdout, info, cs, listed, q.json)
	if !info.HasLeader() {
		return exitNoLeader, nil
	}
	return 0, nil
}

// statusJSON is status's JSON: a LeaderInfo as observe prints it, and the
// candidates (left out if the store keeps no list).
type statusJSON struct {
	infoJSON
	Candidates *[]candidateJSON `json:"candidates,omitempty"`
}

// printStatus prints the leader and, if listed, the candidates.
func printStatus(w io.Writer, info lease.LeaderInfo, cs []lease.Candidate, listed, asJSON bool) {
	if !asJSON {
		printInfo(w, info, false)
		if listed {
			printCandidates(w, info.Election, cs)
		}
		return
	}
	st := statusJSON{infoJSON: toInfoJSON(info)}
	if listed {
		c := toCandidateJSON(cs)
		st.Candidates = &c
	}
	b, _ := json.Marshal(st)
	fmt.Fprintln(w, string(b))
}

func runObserve(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var q query
	e, closeAll, code, err := q.open(ctx, "observe", observeUsage, args, stderr)
	if err != nil {
		return code, err
	}
	defer closeAll()
	ch, err := e.Observe(ctx, q.election)
	if err != nil {
		return 1, err
	}
	for info := range ch {
		if info.Err != nil { // the store refused: permanent
			return 1, info.Err
		}
		info.Election = q.election
		printInfo(stdout, info, q.json)
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
	Since    time.Time `json:"since,omitzero"`
	Value    string    `json:"value,omitempty"`
}

func toInfoJSON(info lease.LeaderInfo) infoJSON {
	return infoJSON{info.Election, info.HasLeader(), info.Identity, uint64(info.Token), info.Session, info.Since, info.Value}
}

func printInfo(w io.Writer, info lease.LeaderInfo, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(toInfoJSON(info))
		fmt.Fprintln(w, string(b))
		return
	}
	if !info.HasLeader() {
		fmt.Fprintf(w, "%s: no leader\n", info.Election)
		return
	}
	fmt.Fprintf(w, "%s: leader %s token %d session %s since %s", info.Election, info.Identity,
		info.Token, info.Session, info.Since.Format(time.RFC3339Nano))
	if info.Value != "" {
		fmt.Fprintf(w, " value %q", info.Value)
	}
	fmt.Fprintln(w)
}
