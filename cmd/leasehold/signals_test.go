package main

import (
	"bufio"
	"io"
	"net"
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

// TestStopSignalsEveryCommand: observe, streaming, and status, still at
// its first contact with a store that never answers, exit 128+signal on
// SIGTERM and SIGINT, as run and handover do, and print no error.
func TestStopSignalsEveryCommand(t *testing.T) {
	store := "etcd://" + etcdServer(t) + "/t"
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		obs, out := startWithStdout(t, "observe", "--store", store, "--election", "jobs/o")
		out.await(t, "jobs/o: no leader", 20*time.Second)
		checkStopSignal(t, obs, sig)

		silent := silentStore(t)
		st := startProc(t, nil, "status", "--store", "etcd://"+silent.addr+"/t", "--election", "jobs/o", "--dial-timeout", "60s")
		select {
		case <-silent.accepted:
		case <-time.After(20 * time.Second):
			t.Fatal("status did not connect to the store within 20s")
		}
		checkStopSignal(t, st, sig)
	}
}

// checkStopSignal sends sig to p and checks its exit: 128+sig, with no
// "leasehold:" error line.
func checkStopSignal(t *testing.T, p *leaseholdProc, sig syscall.Signal) {
	t.Helper()
	_ = p.c.Process.Signal(sig)
	if code, want := p.code(t, 10*time.Second), 128+int(sig); code != want {
		t.Errorf("%s, %v: exit %d, want %d\n%s", p.c.Args, sig, code, want, p.stderr.all.String())
	}
	if out := p.stderr.all.String(); strings.Contains(out, "leasehold:") {
		t.Errorf("%s, %v: stderr %q, want no error", p.c.Args, sig, out)
	}
}

// startWithStdout is startProc with leasehold's stdout read by lines,
// through a FIFO.
func startWithStdout(t *testing.T, args ...string) (*leaseholdProc, *lines) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "stdout")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startProgram(t, nil, []string{"FIFO=" + fifo}, "sh", append([]string{"-c", `exec "$0" "$@" >"$FIFO"`, binary(t)}, args...)...)
	f, err := os.Open(fifo) // returns once sh has opened it to write
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	out := newLines()
	go func() { _, _ = io.Copy(out, f) }()
	return p, out
}

// silentStoreAddr is a TCP listener that accepts connections and never
// answers; accepted is closed at its first connection.
type silentStoreAddr struct {
	addr     string
	accepted chan struct{}
}

func silentStore(t *testing.T) silentStoreAddr {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := silentStoreAddr{addr: l.Addr().String(), accepted: make(chan struct{})}
	t.Cleanup(func() { l.Close() })
	go func() {
		var conns []net.Conn
		for {
			c, err := l.Accept()
			if err != nil {
				break
			}
			if conns = append(conns, c); len(conns) == 1 {
				close(s.accepted)
			}
		}
		for _, c := range conns {
			c.Close()
		}
	}()
	return s
}
