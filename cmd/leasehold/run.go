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

const runUsage = `usage: leasehold run --store URL --election NAME [flags] -- CMD [ARGS...]

Campaigns for the election and runs CMD while this process leads, with
LEASEHOLD_ELECTION, LEASEHOLD_TOKEN (the fencing token) and
LEASEHOLD_IDENTITY in its environment (and no credential of the store,
nor LEASEHOLD_STORE: see docs/security.md). When leadership is lost, every
process of the term (CMD and all it started, daemons included) gets
SIGTERM and, after --grace, SIGKILL: the grace ends before the store could
hand the election to anyone else. When CMD exits, the rest of its processes
are stopped the same way; then leasehold resigns and exits with CMD's code
(--on-exit=exit) or starts CMD again while still leading
(--on-exit=restart), after a delay of 100 ms that doubles after each run
shorter than 10 s, up to 30 s. A CMD that is not found exits 127, one
found but not executable 126, as in a shell: run looks before it
campaigns, and again at each start. SIGTERM, SIGINT, SIGHUP or SIGQUIT
stop the term, resign, and exit with 128+signal (143, 130, 129, 131);
SIGHUP means stop, not reload (under nohup it stays ignored).

Each term runs in a PID namespace of its own, so that nothing of it
outlives the term or leasehold; where the kernel refuses one, run warns
and stops the term's processes as their subreaper instead (see
'go doc github.com/leasehold/leasehold/cmd/leasehold'). LEASEHOLD_RUN_NO_PIDNS=1 chooses that form.

Candidates are listed in succession order (see leasehold status):
--priority ranks them (higher leads first), --label publishes key=value
pairs, and --no-lead lists and watches without ever leading (CMD never
runs). With --preempt, a leader hands over to a candidate of strictly
higher priority that has waited a TTL (--preempt-after). A handover (--preempt, leasehold
handover) stops the term like a loss, then passes the key on and
campaigns again, whatever --on-loss says. With --damp N, a candidate that
lost leadership N times within --damp-window sits out a while.

flags:
`

// runFlags are the flags of leasehold run.
type runFlags struct {
	common
	grace          time.Duration
	onLoss, onExit string
}

func runRun(ctx context.Context, args []string, stderr io.Writer) (int, error) {
	var f runFlags
	cmd, err := f.parse(args)
	if err != nil {
		return 2, err
	}
	if _, err := lookCmd(cmd[0]); err != nil {
		return exitCodeOf(err), err // before any campaign
	}
	t, warning, err := chooseTree()
	if err != nil {
		return 1, err
	}
	if warning != "" {
		fmt.Fprintln(stderr, "leasehold:", warning)
	}
	e, closeAll, err := f.open(ctx, stderr)
	if err != nil {
		return 1, err
	}
	defer closeAll()
	if err := f.checkGrace(e.Options()); err != nil {
		return 2, err
	}
	r := &runner{f: &f, e: e, cmd: cmd, tree: t, stderr: stderr, backoff: defaultRestart}
	return r.loop(ctx)
}

// parse parses and checks args, returning CMD and its arguments.
func (f *runFlags) parse(args []string) ([]string, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f.register(fs)
	f.policy.register(fs)
	fs.DurationVar(&f.grace, "grace", 0, "time between SIGTERM and SIGKILL on loss; must be below the margin (default margin/2)")
	fs.StringVar(&f.onLoss, "on-loss", "recampaign", "after losing leadership: recampaign or exit (code 3)")
	fs.StringVar(&f.onExit, "on-exit", "exit", "when CMD exits while leading: exit (resign, exit with its code) or restart (after 100 ms, doubled after each run under 10 s, up to 30 s)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), runUsage); fs.PrintDefaults() }
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	cmd := fs.Args()
	if err := f.check(); err != nil {
		return nil, err
	}
	return cmd, f.validate(cmd)
}

func (f *runFlags) validate(cmd []string) error {
	switch {
	case len(cmd) == 0:
		return errors.New("no command: put it after --, e.g. leasehold run --store URL --election jobs/a -- ./job.sh")
	case f.onLoss != "recampaign" && f.onLoss != "exit":
		return fmt.Errorf("--on-loss %q: want recampaign or exit", f.onLoss)
	case f.onExit != "exit" && f.onExit != "restart":
		return fmt.Errorf("--on-exit %q: want exit or restart", f.onExit)
	case f.grace < 0:
		return fmt.Errorf("--grace %v: want 0 (the default, margin/2) or a duration below the margin", f.grace)
	}
	return f.policy.check()
}

// checkGrace defaults the grace to half the margin and checks that SIGKILL
// comes before the store could free the key.
func (f *runFlags) checkGrace(o lease.Options) error {
	if f.grace == 0 {
		f.grace = o.SafetyMargin / 2
	}
	if f.grace <= 0 || f.grace >= o.SafetyMargin {
		return fmt.Errorf("--grace %v must be above 0 and below the margin %v (raise --margin for a longer grace)",
			f.grace, o.SafetyMargin)
	}
	return nil
}
