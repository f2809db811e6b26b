package main

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRestartBackoff: the delay doubles after each run shorter than reset,
// up to the limit, and starts over after a run that stayed up reset.
func TestRestartBackoff(t *testing.T) {
	b := restartBackoff{first: 100 * time.Millisecond, limit: time.Second, reset: 10 * time.Second}
	var got []time.Duration
	for _, up := range []time.Duration{0, 0, 0, 0, 0, 0, 10 * time.Second, time.Millisecond, 9 * time.Second} {
		got = append(got, b.next(up))
	}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000, 100, 200, 400}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("delays %v, want %v ms", got, want)
		}
	}
}

// withRestart sets the restart backoff of the runs a test starts.
func withRestart(t *testing.T, b restartBackoff) {
	saved := defaultRestart
	defaultRestart = b
	t.Cleanup(func() { defaultRestart = saved })
}

// restartDelay matches the delay runner.pause logs.
var restartDelay = regexp.MustCompile(`restarting the child in (\S+) `)

// restartUp matches how long the run before a restart was up, as logged.
var restartUp = regexp.MustCompile(`it was up (\S+)\)`)

// TestRunRestartBacksOff: with --on-exit restart, a CMD that fails at once
// is restarted after a delay that doubles up to the limit, each start at
// least that delay after the last one's exit; a run that stayed up the
// reset time starts the delays over. Runs 1-5 and 7-8 exit at once, run 6
// stays up 1.5 s (reset 1 s). The delay each restart must have is computed
// from the up time logged before it, so that a run a loaded machine was
// slow to start (up longer than planned) does not fail the test; the runs'
// plan must still show the cap and a reset.
func TestRunRestartBacksOff(t *testing.T) {
	b := restartBackoff{first: 20 * time.Millisecond, limit: 160 * time.Millisecond, reset: time.Second}
	withRestart(t, b)
	store := "etcd://" + etcdServer(t) + "/t"
	count := filepath.Join(t.TempDir(), "runs")
	script := `n=$(($(cat ` + count + ` 2>/dev/null || echo 0)+1)); echo $n > ` + count + `; [ $n -ne 6 ] || sleep 1.5; exit 1`
	in := start(t, "run", "--store", store, "--election", "jobs/r", "--ttl", "2s", "--on-exit", "restart", "--", "sh", "-c", script)
	var starts []time.Time
	var delays []time.Duration
	want := 0 * time.Millisecond
	for i := 0; i <= 7; i++ {
		starts = append(starts, stamp(t, in.stderr.await(t, "started child", 10*time.Second)))
		if i == 7 {
			break
		}
		exited := stamp(t, in.stderr.await(t, "exited with code 1", 10*time.Second))
		line := in.stderr.await(t, "restarting the child in", 5*time.Second)
		d, err := time.ParseDuration(restartDelay.FindStringSubmatch(line)[1])
		up, uerr := time.ParseDuration(restartUp.FindStringSubmatch(line)[1])
		if err != nil || uerr != nil {
			t.Fatalf("restart %d: %q: %v %v", i+1, line, err, uerr)
		}
		if want == 0 || up >= b.reset {
			want = b.first
		} else {
			want = min(2*want, b.limit)
		}
		if d != want {
			t.Fatalf("restart %d: %q, want a delay of %v after a run up %v", i+1, line, want, up)
		}
		delays = append(delays, d)
		if i > 0 && starts[i].Sub(starts[i-1]) < 0 || exited.Before(starts[i]) {
			t.Fatalf("times out of order: %v, exit %v", starts, exited)
		}
		defer func(i int, exited time.Time) {
			if gap := starts[i+1].Sub(exited); gap < d {
				t.Errorf("restart %d: started %v after the exit, want at least %v", i+1, gap, d)
			}
		}(i, exited)
	}
	if !slices.Contains(delays, b.limit) || delays[5] != b.first {
		t.Errorf("delays %v: want the cap %v reached and run 6 (up 1.5 s) to start them over", delays, b.limit)
	}
	t.Logf("delays %v, starts %v", delays, starts)
}

// TestRunRestartWaitEnds: the wait before a restart ends at once on a stop
// signal (exit 143, resigned) and on a loss of leadership (--on-loss exit:
// exit 3, after Close gives up on the cut store), whatever the delay.
func TestRunRestartWaitEnds(t *testing.T) {
	withRestart(t, restartBackoff{first: time.Hour, limit: time.Hour, reset: time.Hour})
	srv := etcdServer(t)
	t.Run("signal", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		stderr, code := newLines(), make(chan int, 1)
		go func() {
			code <- run(ctx, []string{"run", "--store", "etcd://" + srv + "/t", "--election", "jobs/s", "--ttl", "2s",
				"--on-exit", "restart", "--", "false"}, newLines(), stderr)
		}()
		stderr.await(t, "restarting the child in 1h0m0s", 10*time.Second)
		cancel(signalCause{syscall.SIGTERM})
		select {
		case c := <-code:
			if c != 143 {
				t.Fatalf("exit %d, want 143", c)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no exit within 5 s of SIGTERM")
		}
		stderr.await(t, "resigned", time.Second)
	})
	t.Run("loss", func(t *testing.T) {
		p := newProxy(t, srv)
		in := start(t, "run", "--store", "etcd://"+p.l.Addr().String()+"/t", "--election", "jobs/l", "--ttl", "2s",
			"--on-exit", "restart", "--on-loss", "exit", "--", "false")
		in.stderr.await(t, "restarting the child in 1h0m0s", 10*time.Second)
		p.cut()
		// The deadline passes within TTL-margin (1.5 s) of the last renewal.
		in.stderr.await(t, "leadership lost", 4*time.Second)
		if c := in.exit(t, 10*time.Second); c != exitLost {
			t.Fatalf("exit %d, want %d\n%s", c, exitLost, in.stderr.all.String())
		}
	})
}

// TestRunRestartFailingCMD: with the default backoff (100 ms, doubling), a
// CMD that fails at once starts at most 5 times in its first 2 s (at 0,
// 0.1, 0.3, 0.7 and 1.5 s), where it used to start hundreds of times.
func TestRunRestartFailingCMD(t *testing.T) {
	store := "etcd://" + etcdServer(t) + "/t"
	in := start(t, "run", "--store", store, "--election", "jobs/f", "--ttl", "2s", "--on-exit", "restart", "--", "false")
	first := stamp(t, in.stderr.await(t, "started child", 10*time.Second))
	window := time.NewTimer(2 * time.Second) // a span to count over, not a wait for a condition
	<-window.C
	in.stderr.mu.Lock()
	out := in.stderr.all.String()
	in.stderr.mu.Unlock()
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "started child") && stamp(t, line).Sub(first) < 2*time.Second {
			n++
		}
	}
	if n > 5 {
		t.Fatalf("%d starts in 2 s, want at most 5", n)
	}
	t.Logf("%d starts in 2 s", n)
}
