package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/leasehold/leasehold/lease"
)

// runner is one leasehold run.
type runner struct {
	f      *runFlags
	e      *lease.LeaseElector
	cmd    []string
	tree   tree
	stderr io.Writer

	backoff  restartBackoff // --on-exit restart's
	restarts int            // CMD's restarts so far
}

// exitLost is the exit code after a loss with --on-loss=exit.
const exitLost = 3

// loop campaigns, runs the child while leading, and decides what next.
// A signal ends it with 128+signal (see interruptedCode).
func (r *runner) loop(ctx context.Context) (int, error) {
	for {
		l, err := r.e.Campaign(ctx, r.f.election)
		if err != nil {
			if ctx.Err() != nil {
				return interruptedCode(ctx), nil
			}
			return 1, err
		}
		code, done, err := r.lead(ctx, l)
		if done || err != nil {
			return code, err
		}
	}
}

// lead runs the child for one term. done says whether leasehold exits.
// Every way out stops the term's whole process tree first.
func (r *runner) lead(ctx context.Context, l *lease.Leadership) (code int, done bool, err error) {
	for {
		// Valid, not Err: after a pause, Err says nil until the elector's
		// goroutine has run, Valid compares the clock with the deadline now.
		if err := l.Valid(); err != nil {
			return r.ended(l, err, nil)
		}
		child, err := r.start(l)
		if err != nil {
			r.resign(l)
			return exitCodeOf(err), true, err
		}
		select {
		case <-child.exited:
			r.logf("child pid %d exited with code %d", child.pid, child.code())
			r.stop(child)
			if r.f.onExit != "restart" || l.Valid() != nil || ctx.Err() != nil {
				r.resign(l)
				return child.code(), true, nil
			}
			if code, done, end, err := r.pause(ctx, l, child); end {
				return code, done, err
			}
		case <-l.Context().Done():
			return r.ended(l, l.Err(), child)
		case <-ctx.Done():
			r.logf("%v: stopping child pid %d", context.Cause(ctx), child.pid)
			r.stop(child)
			r.resign(l)
			return interruptedCode(ctx), true, nil
		}
	}
}

// pause waits out the restart backoff after child's exit, still leading.
// end says whether the leadership ended or a signal came meanwhile; code,
// done and err are then lead's result.
func (r *runner) pause(ctx context.Context, l *lease.Leadership, ch *child) (code int, done, end bool, err error) {
	d := r.backoff.next(ch.up)
	r.restarts++
	r.logf("restarting the child in %v (restart %d; it was up %v)", d, r.restarts, ch.up.Round(time.Millisecond))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return 0, false, false, nil
	case <-l.Context().Done():
		code, done, err = r.ended(l, l.Err(), nil)
	case <-ctx.Done():
		r.logf("%v: not restarting the child", context.Cause(ctx))
		r.resign(l)
		code, done = interruptedCode(ctx), true
	}
	return code, done, true, err
}

// ended is lead's result once the leadership ended with cause, after
// stopping child (nil: not started). A handover (lease.ErrHandover) is no
// loss: the key stays held until the child is gone, run resigns to pass it
// on, and campaigns again at once whatever --on-loss says. The pass binds
// the key to the target's session in one write, so the new campaign waits
// behind the target; if the pass failed, the key was deleted and the
// election is open to all.
func (r *runner) ended(l *lease.Leadership, cause error, child *child) (code int, done bool, err error) {
	handover := errors.Is(cause, lease.ErrHandover)
	what := "leadership lost"
	if handover {
		what = "handing over"
	}
	if child == nil {
		r.logf("%s (%v) before the child started", what, cause)
	} else {
		r.logf("%s (%v): stopping child pid %d", what, cause, child.pid)
		r.stop(child)
	}
	if !handover {
		return r.lost()
	}
	r.resign(l)
	return 0, false, nil
}

// lost is lead's result after a loss.
func (r *runner) lost() (code int, done bool, err error) {
	if r.f.onLoss == "exit" {
		return exitLost, true, nil
	}
	return 0, false, nil
}

func (r *runner) resign(l *lease.Leadership) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.Resign(ctx)
	r.logf("resigned")
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.stderr, "leasehold: %s %s\n", time.Now().UTC().Format(time.RFC3339Nano), fmt.Sprintf(format, args...))
}

// child is a running CMD, or the init of its PID namespace.
type child struct {
	c      *exec.Cmd
	pid    int
	exited chan struct{} // closed when Wait returned
	err    error
	up     time.Duration // from start to exit, once exited is closed
}

// code is the child's exit code, 128+signal if a signal ended it.
func (ch *child) code() int {
	var ee *exec.ExitError
	if errors.As(ch.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			return exitCode(ws)
		}
		return ee.ExitCode()
	}
	if ch.err != nil {
		return 1
	}
	return 0
}

// start runs CMD for one term (see tree) with the term's details in its
// environment.
func (r *runner) start(l *lease.Leadership) (*child, error) {
	path, err := lookCmd(r.cmd[0]) // again: it may be gone since runRun's look
	if err != nil {
		return nil, err
	}
	c, lifeline, err := r.tree.command(r.f.grace, path, r.cmd)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", r.cmd[0], err)
	}
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.Env = append(childEnv(os.Environ()), "LEASEHOLD_ELECTION="+l.Election,
		"LEASEHOLD_TOKEN="+strconv.FormatUint(uint64(l.Token), 10), "LEASEHOLD_IDENTITY="+l.Identity)
	ch, err := spawn(c, lifeline)
	if err != nil {
		return nil, cmdError{startFailCode(err), fmt.Errorf("start %s: %w", r.cmd[0], err)}
	}
	if r.tree.pidns == nil {
		go reapOrphans(ch) // the init reaps them in the namespace form
	}
	r.logf("leading %q with token %d: started child pid %d", l.Election, l.Token, ch.pid)
	return ch, nil
}

// spawn starts c and waits for it on one goroutine locked to its OS
// thread: Pdeathsig fires when the thread that forked the child exits, not
// the process, and a locked thread lives until its goroutine unlocks it.
// lifeline, if not nil, is closed once c has exited (see tree.command).
func spawn(c *exec.Cmd, lifeline *os.File) (*child, error) {
	ch := &child{c: c, exited: make(chan struct{})}
	started := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := c.Start()
		for _, f := range c.ExtraFiles {
			f.Close() // the child's ends
		}
		if lifeline != nil {
			defer lifeline.Close()
		}
		if err != nil {
			started <- err
			return
		}
		ch.pid = c.Process.Pid
		began := time.Now()
		started <- nil
		ch.err = c.Wait()
		ch.up = time.Since(began)
		close(ch.exited)
	}()
	return ch, <-started
}

// stop ends the term's whole process tree, whether or not the child has
// exited: SIGTERM, SIGKILL after the grace, and waits until all are gone.
func (r *runner) stop(ch *child) {
	if r.tree.pidns == nil {
		stopDescendants(ch, r.f.grace)
	} else {
		stopNamespace(ch, r.f.grace)
	}
	r.logf("child pid %d stopped, with every process it started", ch.pid)
}

// stopNamespace ends a term's PID namespace: SIGTERM to its init, which
// sends it on to every process in it, and SIGKILL to the init after grace.
// Once the init is reaped the namespace is empty: the kernel kills and
// reaps every process in it before the init's exit is reported. After
// CMD's own exit, the init has already done this.
func stopNamespace(ch *child, grace time.Duration) {
	// Process.Signal uses a pidfd: it never reaches a process that took
	// the init's PID after Wait reaped it.
	_ = ch.c.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-ch.exited:
	case <-t.C:
		_ = ch.c.Process.Signal(syscall.SIGKILL)
		<-ch.exited
	}
}
