package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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
	stderr io.Writer
}

// exitLost is the exit code after a loss with --on-loss=exit.
const exitLost = 3

// loop campaigns, runs the child while leading, and decides what next.
func (r *runner) loop(ctx context.Context) (int, error) {
	for {
		l, err := r.e.Campaign(ctx, r.f.election)
		if err != nil {
			if ctx.Err() != nil {
				return 0, nil
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
func (r *runner) lead(ctx context.Context, l *lease.Leadership) (code int, done bool, err error) {
	for {
		child, err := r.start(l)
		if err != nil {
			r.resign(l)
			return 1, true, err
		}
		select {
		case <-child.exited:
			code := child.code()
			r.logf("child pid %d exited with code %d", child.pid, code)
			if r.f.onExit == "restart" && l.Err() == nil && ctx.Err() == nil {
				continue
			}
			r.resign(l)
			return code, true, nil
		case <-l.Done():
			r.logf("leadership lost (%v): stopping child pid %d", l.Err(), child.pid)
			r.stop(child)
			if r.f.onLoss == "exit" {
				return exitLost, true, nil
			}
			return 0, false, nil
		case <-ctx.Done():
			r.stop(child)
			r.resign(l)
			return 0, true, nil
		}
	}
}

func (r *runner) resign(l *lease.Leadership) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.Resign(ctx)
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.stderr, "leasehold: %s %s\n", time.Now().UTC().Format(time.RFC3339Nano), fmt.Sprintf(format, args...))
}

// child is a running CMD.
type child struct {
	c      *exec.Cmd
	pid    int
	exited chan struct{} // closed when Wait returned
	err    error
}

func (ch *child) code() int {
	var ee *exec.ExitError
	if errors.As(ch.err, &ee) {
		return ee.ExitCode()
	}
	if ch.err != nil {
		return 1
	}
	return 0
}

// start runs CMD in a process group of its own with the term's details in
// its environment.
func (r *runner) start(l *lease.Leadership) (*child, error) {
	c := exec.Command(r.cmd[0], r.cmd[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.Env = append(os.Environ(), "LEASEHOLD_ELECTION="+l.Election,
		"LEASEHOLD_TOKEN="+strconv.FormatUint(uint64(l.Token), 10), "LEASEHOLD_IDENTITY="+l.Identity)
	// Its own process group, so that a loss stops everything it started;
	// SIGKILL if leasehold itself dies, so that no child outlives it.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", r.cmd[0], err)
	}
	ch := &child{c: c, pid: c.Process.Pid, exited: make(chan struct{})}
	r.logf("leading %q with token %d: started child pid %d", l.Election, l.Token, ch.pid)
	go func() { ch.err = c.Wait(); close(ch.exited) }()
	return ch, nil
}

// stop sends SIGTERM to the child's process group, SIGKILL after the
// grace, and waits for the child to be gone.
func (r *runner) stop(ch *child) {
	_ = syscall.Kill(-ch.pid, syscall.SIGTERM)
	t := time.NewTimer(r.f.grace)
	defer t.Stop()
	select {
	case <-ch.exited:
	case <-t.C:
		_ = syscall.Kill(-ch.pid, syscall.SIGKILL)
		<-ch.exited
	}
	r.logf("child pid %d stopped", ch.pid)
}
