package cand

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leasehold/leasehold/bench/internal/env"
)

// Stamped is a Candidate that tells when, by the wall clock, its last
// Acquire returned and its last Release was called, in the process that
// made them: a Remote's pipe latency is in neither.
type Stamped interface {
	// Won is when the last Acquire returned.
	Won() time.Time
	// Releasing is when the last Release was called.
	Releasing() time.Time
}

// Remote is a Candidate in a process of its own: the candidate binary
// run with -serve, which makes its Acquire and Release (Serve). A
// hand-off between two Remotes is what it is between two deployed
// processes: neither candidate's work runs on the other's Go scheduler.
type Remote struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	mu    sync.Mutex // one command at a time
	won   time.Time
	rel   time.Time
}

// NewRemote starts a Remote candidate of lib for election on st: the
// candidate binary at bin.
func NewRemote(bin string, lib Lib, st *env.Store, election string, o Opts) (*Remote, error) {
	cmd := exec.Command(bin, "-serve", "-lib", string(lib), "-store", string(st.Kind),
		"-endpoints", strings.Join(st.Endpoints, ","), "-election", election, "-ttl", o.TTL.String(),
		"-lockdelay", o.LockDelay.String())
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &Remote{cmd: cmd, in: in, lines: make(chan string, 4)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	if err := r.expect(context.Background(), "ready", nil); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Acquire implements Candidate.
func (r *Remote) Acquire(ctx context.Context) error {
	return r.command(ctx, "acquire", "won", &r.won)
}

// Release implements Candidate.
func (r *Remote) Release(ctx context.Context) error {
	return r.command(ctx, "release", "released", &r.rel)
}

// Won implements Stamped.
func (r *Remote) Won() time.Time { r.mu.Lock(); defer r.mu.Unlock(); return r.won }

// Releasing implements Stamped.
func (r *Remote) Releasing() time.Time { r.mu.Lock(); defer r.mu.Unlock(); return r.rel }

// Close implements Candidate: the process closes its candidate when its
// input ends, and is killed if it has not exited within 10 s.
func (r *Remote) Close() {
	_ = r.in.Close()
	done := make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = r.cmd.Process.Kill()
		<-done
	}
}

// command sends cmd and waits for its answer, which it stamps into at.
func (r *Remote) command(ctx context.Context, cmd, answer string, at *time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := fmt.Fprintln(r.in, cmd); err != nil {
		return err
	}
	return r.expect(ctx, answer, at)
}

// expect reads the next line, which must be answer followed by a wall
// time in Unix nanoseconds (none for "ready"), or "err" and a message.
func (r *Remote) expect(ctx context.Context, answer string, at *time.Time) error {
	var l string
	select {
	case v, ok := <-r.lines:
		if !ok {
			return fmt.Errorf("candidate process: output ended, waiting for %q", answer)
		}
		l = v
	case <-ctx.Done():
		return ctx.Err()
	}
	word, rest, _ := strings.Cut(l, " ")
	switch {
	case word == "err":
		return fmt.Errorf("candidate process: %s", rest)
	case word != answer:
		return fmt.Errorf("candidate process: %q, want %q", l, answer)
	case at == nil:
		return nil
	}
	ns, err := strconv.ParseInt(rest, 10, 64)
	if err != nil {
		return fmt.Errorf("candidate process: %q: %w", l, err)
	}
	*at = time.Unix(0, ns)
	return nil
}

// Serve runs c on commands from in, one per line, and answers on out:
// "acquire" answers "won" and the wall time at which Acquire returned,
// "release" answers "released" and the time at which Release was called,
// each as Unix nanoseconds, or "err" and the error. It says "ready"
// first. When in ends it closes c and returns 0 (or 1 if in failed).
func Serve(c Candidate, in io.Reader, out io.Writer) int {
	defer c.Close()
	fmt.Fprintln(out, "ready")
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var at time.Time
		var err error
		word := "won"
		switch sc.Text() {
		case "acquire":
			err = c.Acquire(ctx)
			at = time.Now()
		case "release":
			word, at = "released", time.Now()
			err = c.Release(ctx)
		default:
			err = fmt.Errorf("unknown command %q", sc.Text())
		}
		cancel()
		if err != nil {
			fmt.Fprintln(out, "err", strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		fmt.Fprintln(out, word, at.UnixNano())
	}
	if sc.Err() != nil {
		return 1
	}
	return 0
}
