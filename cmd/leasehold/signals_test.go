package main

import (
	"bufio"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopSignalTTL is long, and stopSignalHandoff far below it: a key that is
// freed within the hand-off was resigned, not left to expire.
const (
	stopSignalTTL     = 30 * time.Second
	stopSignalHandoff = 5 * time.Second
)

// TestRunStopSignals: SIGHUP, SIGINT, SIGTERM and SIGQUIT each make a
// leading run, in both forms, stop the term's whole tree (a daemon that
// double-forked and ignores SIGTERM and SIGHUP included), resign at once
// (an observer sees no leader within a hand-off, not the TTL), and exit
// 128+signal; SIGQUIT without Go's goroutine dump.
func TestRunStopSignals(t *testing.T) {
	srv := etcdServer(t)
	for _, m := range treeModes {
		for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT} {
			t.Run(m.name+"/"+sig.String(), func(t *testing.T) {
				if sig == syscall.SIGHUP && signal.Ignored(sig) {
					t.Skip("SIGHUP is ignored in the test process (nohup), so in leasehold too")
				}
				testStopSignal(t, srv, m, sig)
			})
		}
	}
}

func testStopSignal(t *testing.T, srv string, m treeMode, sig syscall.Signal) {
	store := "etcd://" + srv + "/t"
	election := "jobs/" + m.name + "-" + strconv.Itoa(int(sig))
	log := filepath.Join(t.TempDir(), "log")
	a := startProc(t, append([]string{"LOG=" + log}, m.env...), "run", "--store", store, "--election", election,
		"--ttl", stopSignalTTL.String(), "--grace", "1s", "--identity", "A", "--log-level", "error",
		"--", "sh", "-c", daemonTERM)
	obs := start(t, "observe", "--store", store, "--election", election)
	a.token(t, 20*time.Second)
	obs.stdout.await(t, "leader A", 20*time.Second)
	waitFor(t, 10*time.Second, "the daemon's lines", func() bool { return countWith(logLines(log), "d token=") > 0 })
	if n := len(tagged(a.tag, a.c.Process.Pid)); n < 2 {
		t.Fatalf("%d processes in the term, want at least 2 (CMD, the daemon)", n)
	}
	sent := time.Now()
	_ = a.c.Process.Signal(sig)
	want := 128 + int(sig)
	if code := a.code(t, stopSignalHandoff); code != want {
		t.Errorf("exit %d (%v), want %d", code, a.c.ProcessState, want)
	}
	exited := time.Since(sent)
	if left := tagged(a.tag, a.c.Process.Pid); len(left) > 0 {
		t.Errorf("the term's processes outlive leasehold: %+v", left)
	}
	obs.stdout.await(t, "no leader", stopSignalHandoff-time.Since(sent))
	t.Logf("%v: exit %d after %v; no leader seen %v after the signal (TTL %v)",
		sig, a.c.ProcessState.ExitCode(), exited.Round(time.Millisecond), time.Since(sent).Round(time.Millisecond), stopSignalTTL)
	out := a.stderr.all.String()
	for _, s := range []string{"received: stopping child pid", "resigned"} {
		if !strings.Contains(out, s) {
			t.Errorf("stderr lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "goroutine ") {
		t.Errorf("stderr has a goroutine dump:\n%s", out)
	}
}

// TestRunNohupKeepsRunning: under nohup (SIGHUP ignored when leasehold
// starts), SIGHUP does not stop run: the SIGTERM sent after it does (143,
// not 129).
func TestRunNohupKeepsRunning(t *testing.T) {
	store := "etcd://" + etcdServer(t) + "/t"
	a := startProgram(t, nil, nil, "sh", "-c", `trap "" HUP; exec "$0" "$@"`, binary(t),
		"run", "--store", store, "--election", "jobs/nohup", "--ttl", "2s", "--log-level", "error", "--", "sleep", "1000")
	a.token(t, 20*time.Second)
	_ = a.c.Process.Signal(syscall.SIGHUP)
	_ = a.c.Process.Signal(syscall.SIGTERM)
	if code, want := a.code(t, 10*time.Second), 128+int(syscall.SIGTERM); code != want {
		t.Errorf("exit %d, want %d (SIGHUP ignored, SIGTERM stops)\n%s", code, want, a.stderr.all.String())
	}
}

// TestRunSurvivesClosedStderr: with its stderr a pipe nobody reads any
// more (an ssh session without a terminal that hung up), SIGTERM still
// makes run stop the term's whole tree, resign and exit 143: the write of
// its "stopping child" line fails (EPIPE) instead of killing it with
// SIGPIPE, Go's default for fd 1 and 2.
func TestRunSurvivesClosedStderr(t *testing.T) {
	srv := etcdServer(t)
	for _, m := range treeModes {
		t.Run(m.name, func(t *testing.T) { testClosedStderr(t, srv, m) })
	}
}

func testClosedStderr(t *testing.T, srv string, m treeMode) {
	dir := t.TempDir()
	fifo, log := filepath.Join(dir, "stderr"), filepath.Join(dir, "log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// sh execs leasehold, which keeps its PID, with stderr on the FIFO.
	a := startProgram(t, nil, append([]string{"LOG=" + log, "FIFO=" + fifo}, m.env...), "sh", "-c", `exec "$0" "$@" 2>"$FIFO"`,
		binary(t), "run", "--store", "etcd://"+srv+"/t", "--election", "jobs/epipe-"+m.name, "--ttl", "30s", "--grace", "1s",
		"--log-level", "error", "--", "sh", "-c", daemonTERM)
	f, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	go func() {
		s := bufio.NewScanner(f)
		for s.Scan() {
			if strings.Contains(s.Text(), "started child") {
				close(started)
				return
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		f.Close()
		t.Fatal("no \"started child\" line within 20s")
	}
	waitFor(t, 10*time.Second, "the daemon's lines", func() bool { return countWith(logLines(log), "d token=") > 0 })
	f.Close() // the reader is gone: leasehold's next write gets EPIPE
	_ = a.c.Process.Signal(syscall.SIGTERM)
	if code, want := a.code(t, 10*time.Second), 128+int(syscall.SIGTERM); code != want {
		t.Errorf("exit %d (%v), want %d", code, a.c.ProcessState, want)
	}
	if left := tagged(a.tag, a.c.Process.Pid); len(left) > 0 {
		t.Errorf("the term's processes outlive leasehold: %+v", left)
	}
}
