package scenario

import (
	"bufio"
	"cmp"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
)

// Crash measures n crash failovers, all at once, each on an election of
// its own: a leader runs in a child process (the candidate binary at bin)
// and is SIGKILLed at t0; a successor of the same library in this process
// measures until it leads. The samples share one wait for the TTL to run
// out (Consul's takes 20–35 s) instead of queueing for it; they are
// independent, since each store expires each session on its own, and
// each starts after a random 0–1 s, so that the kills do not share a
// phase of the store's expiry timer (etcd's checks every 500 ms,
// ZooKeeper's every tick). It
// returns the samples that succeeded, in sample order, and the first
// error.
func Crash(st *env.Store, lib cand.Lib, bin string, n int, o cand.Opts) ([]time.Duration, error) {
	ds, errs := make([]time.Duration, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			time.Sleep(rand.N(time.Second))
			ds[i], errs[i] = crashOnce(st, lib, bin, fmt.Sprintf("crash-%s-%d-%d", lib, time.Now().UnixNano(), i), o)
		})
	}
	wg.Wait()
	out := make([]time.Duration, 0, n)
	var first error
	for i := range n {
		if errs[i] != nil {
			first = cmp.Or(first, fmt.Errorf("crash %d: %w", i, errs[i]))
			continue
		}
		out = append(out, ds[i])
	}
	return out, first
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
