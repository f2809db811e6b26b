package scenario

import (
	"bufio"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
)

// Crash measures n crash failovers: a leader runs in a child process
// (the candidate binary at bin) and is SIGKILLed at t0; a successor of
// the same library in this process measures until it leads.
func Crash(st *env.Store, lib cand.Lib, bin string, n int, o cand.Opts) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for i := range n {
		d, err := crashOnce(st, lib, bin, fmt.Sprintf("crash-%d-%d", time.Now().UnixNano(), i), o)
		if err != nil {
			return out, fmt.Errorf("crash %d: %w", i, err)
		}
		out = append(out, d)
	}
	return out, nil
}

func crashOnce(st *env.Store, lib cand.Lib, bin, election string, o cand.Opts) (time.Duration, error) {
	cmd := exec.Command(bin, "-lib", string(lib), "-store", string(st.Kind), "-endpoints", strings.Join(st.Endpoints, ","),
		"-election", election, "-ttl", o.TTL.String(), "-lockdelay", o.LockDelay.String())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	if l, err := recv(lines, "leader process"); err != nil || l != "leader" {
		return 0, fmt.Errorf("leader process did not lead (%q): %v", l, err)
	}
	succ, err := cand.New(lib, st, election, o)
	if err != nil {
		return 0, err
	}
	defer succ.Close()
	at, won := make(chan time.Time, 1), make(chan error, 1)
	go func() {
		ctx, cancel := bg()
		defer cancel()
		err := succ.Acquire(ctx)
		at <- time.Now()
		won <- err
	}()
	time.Sleep(time.Second) // the successor is waiting
	t0 := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		return 0, err
	}
	t1, err := recv(at, "successor")
	if err != nil {
		return 0, err
	}
	if err := <-won; err != nil {
		return 0, fmt.Errorf("successor: %w", err)
	}
	ctx, cancel := bg()
	defer cancel()
	_ = succ.Release(ctx)
	return t1.Sub(t0), nil
}
