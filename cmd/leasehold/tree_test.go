package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

// TestMain lets the test binary serve as the init of a term's PID
// namespace, as leasehold's main does: the in-process run tests re-execute
// /proc/self/exe, which is this binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == initArg {
		os.Exit(runInit(os.Args[2:], os.Stderr))
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// binary builds leasehold once per test run: the tree tests run it as a
// process of its own, so that each leasehold's descendants are its term's
// alone, and so that it can be SIGKILLed.
func binary(t *testing.T) string {
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "leasehold-bin-"); binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "leasehold"), ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "leasehold")
}

// treeMode is one of run's two ways of confining a term, chosen by env.
type treeMode struct {
	name string
	env  []string
}

var treeModes = []treeMode{{"pidns", nil}, {"subreaper", []string{noPIDNSEnv + "=1"}}}

// leaseholdProc is leasehold run as a process of its own. Every process it
// starts inherits LEASEHOLD_TEST_TAG=tag, which tagged finds in /proc
// whatever became of their parents.
type leaseholdProc struct {
	c      *exec.Cmd
	tag    string
	stderr *lines
	exited chan struct{}
	err    error
}

var tagSeq struct {
	sync.Mutex
	n int
}

func startProc(t *testing.T, env []string, args ...string) *leaseholdProc {
	t.Helper()
	return startProcWith(t, nil, env, args...)
}

func startProcWith(t *testing.T, cred *syscall.Credential, env []string, args ...string) *leaseholdProc {
	t.Helper()
	return startProgram(t, cred, env, binary(t), args...)
}

// startProgram is startProcWith for a program that runs leasehold in its
// turn (e.g. a shell that sets up its signals first).
func startProgram(t *testing.T, cred *syscall.Credential, env []string, prog string, args ...string) *leaseholdProc {
	t.Helper()
	tagSeq.Lock()
	tagSeq.n++
	tag := fmt.Sprintf("%d-%d", os.Getpid(), tagSeq.n)
	tagSeq.Unlock()
	c := exec.Command(prog, args...)
	c.Env = append(append(os.Environ(), "LEASEHOLD_TEST_TAG="+tag), env...)
	p := &leaseholdProc{c: c, tag: tag, stderr: newLines(), exited: make(chan struct{})}
	c.Stderr = p.stderr
	c.WaitDelay = time.Second // leaked processes would hold the stderr pipe open
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Credential: cred}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = c.Wait(); close(p.exited) }()
	t.Cleanup(func() { p.cleanup(t) })
	return p
}

// cleanup stops leasehold and, should the test have failed, whatever it
// left behind.
func (p *leaseholdProc) cleanup(t *testing.T) {
	_ = p.c.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.c.Process.Kill()
		<-p.exited
	}
	for _, q := range tagged(p.tag, 0) {
		_ = syscall.Kill(q.pid, syscall.SIGKILL)
	}
}

// code waits for leasehold's exit code.
func (p *leaseholdProc) code(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
		return p.c.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("leasehold did not exit within %v\n%s", d, p.stderr.all.String())
	}
	return -1
}

// token waits for the term's "started child" line and returns its token.
func (p *leaseholdProc) token(t *testing.T, d time.Duration) string {
	t.Helper()
	m := regexp.MustCompile(`with token (\d+)`).FindStringSubmatch(p.stderr.await(t, "started child", d))
	return m[1]
}

// checkWarning checks that leasehold warned about the weaker form exactly
// when it runs in it.
func (p *leaseholdProc) checkWarning(t *testing.T, m treeMode) {
	t.Helper()
	p.stderr.mu.Lock()
	n := strings.Count(p.stderr.all.String(), "warning: no PID namespace for CMD")
	p.stderr.mu.Unlock()
	if want := len(m.env); n != want {
		t.Errorf("%s: %d warnings about the PID namespace, want %d", m.name, n, want)
	}
}

// tagged returns the processes, zombies aside, that carry
// LEASEHOLD_TEST_TAG=tag in their environment, except leasehold's pid.
func tagged(tag string, except int) []proc {
	want := []byte("\x00LEASEHOLD_TEST_TAG=" + tag + "\x00")
	var out []proc
	for _, q := range procs() {
		if q.pid == except || q.state == 'Z' {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(q.pid) + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, env...), want) {
			out = append(out, q)
		}
	}
	return out
}

// waitFor polls cond until it holds, failing after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		<-tick.C
	}
}

// logLines reads the children's log.
func logLines(path string) []string {
	b, _ := os.ReadFile(path)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func countWith(ls []string, s string) (n int) {
	for _, l := range ls {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// Children whose processes outlive SIGTERM to CMD. Each writes
// "token=$LEASEHOLD_TOKEN" lines to $LOG every 50 ms.
const (
	// a subshell that ignores SIGTERM, in CMD's process group; CMD (the
	// shell) itself dies of SIGTERM. The reproduction.
	grandchildTERM = `( trap '' TERM; while :; do echo "gc token=$LEASEHOLD_TOKEN" >> "$LOG"; sleep .05; done ) & wait`
	// a daemon: a new session (setsid), then a fork whose parent exits, so
	// it is re-parented away from CMD; it ignores SIGTERM and SIGHUP.
	daemonTERM = `setsid sh -c '( trap "" TERM HUP; while :; do echo "d token=$LEASEHOLD_TOKEN" >> "$LOG"; sleep .05; done ) &'; exec sleep 1000`
)

// TestRunTreeLoss: the leader's link to etcd is cut; every process of its
// term, including one that ignores SIGTERM and one that daemonized, is gone
// before the successor's child starts, and no line with the old token is
// written after the successor's first.
func TestRunTreeLoss(t *testing.T) {
	for _, m := range treeModes {
		for _, c := range []struct{ name, script string }{{"grandchild", grandchildTERM}, {"daemon", daemonTERM}} {
			t.Run(m.name+"/"+c.name, func(t *testing.T) { testTreeLoss(t, m, c.script) })
		}
	}
}

func testTreeLoss(t *testing.T, m treeMode, script string) {
	srv := etcdServer(t)
	px := newProxy(t, srv)
	log := filepath.Join(t.TempDir(), "log")
	env := append([]string{"LOG=" + log}, m.env...)
	args := func(addr, id string) []string {
		return []string{"run", "--store", "etcd://" + addr + "/t", "--election", "jobs/x", "--ttl", "2s",
			"--identity", id, "--log-level", "error", "--", "sh", "-c", script}
	}
	a := startProc(t, env, args(px.l.Addr().String(), "A")...)
	old := "token=" + a.token(t, 20*time.Second)
	waitFor(t, 10*time.Second, "the old term's first lines", func() bool { return countWith(logLines(log), old) >= 2 })
	b := startProc(t, env, args(srv, "B")...)
	px.cut()
	cur := "token=" + b.token(t, 20*time.Second)
	waitFor(t, 10*time.Second, "the new term's lines", func() bool { return countWith(logLines(log), cur) >= 5 })
	if left := tagged(a.tag, a.c.Process.Pid); len(left) > 0 {
		t.Errorf("the old term's processes live on into the next: %+v", left)
	}
	ls := logLines(log)
	for i, l := range ls {
		if strings.Contains(l, cur) {
			if n := countWith(ls[i:], old); n > 0 {
				t.Errorf("%d lines with the old %s after the successor's first line:\n%s", n, old, strings.Join(ls, "\n"))
			}
			break
		}
	}
	a.checkWarning(t, m)
}

// TestRunTreeChildExit: CMD exits 0 and leaves a job in the background
// that ignores SIGTERM; the job is gone before leasehold resigns (the
// leader key's deletion).
func TestRunTreeChildExit(t *testing.T) {
	for _, m := range treeModes {
		t.Run(m.name, func(t *testing.T) { testTreeChildExit(t, m) })
	}
}

func testTreeChildExit(t *testing.T, m treeMode) {
	srv := etcdServer(t)
	dir := t.TempDir()
	log, goFile := filepath.Join(dir, "log"), filepath.Join(dir, "go")
	script := `( trap '' TERM; while :; do echo "bg token=$LEASEHOLD_TOKEN" >> "$LOG"; sleep .05; done ) &
while ! test -e "$GO"; do sleep .01; done; exit 0`
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	a := startProc(t, append([]string{"LOG=" + log, "GO=" + goFile}, m.env...),
		"run", "--store", "etcd://"+srv+"/t", "--election", "jobs/y", "--ttl", "2s", "--log-level", "error", "--", "sh", "-c", script)
	a.token(t, 20*time.Second)
	waitFor(t, 10*time.Second, "the job's first line", func() bool { return countWith(logLines(log), "bg token=") > 0 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w := cli.Watch(ctx, "", clientv3.WithPrefix(), clientv3.WithFilterPut())
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if wr := <-w; wr.Err() != nil || len(wr.Events) == 0 {
		t.Fatalf("no deletion of the leader key: %v", wr.Err())
	}
	if left := tagged(a.tag, a.c.Process.Pid); len(left) > 0 {
		t.Errorf("the term's processes live on after the resign: %+v", left)
	}
	if code := a.code(t, 10*time.Second); code != 0 {
		t.Errorf("exit code %d, want CMD's 0\n%s", code, a.stderr.all.String())
	}
	a.checkWarning(t, m)
}

// TestRunTreeLeaseholdKilled: leasehold is SIGKILLed; its whole term, a
// TERM-ignoring job and a daemon included, dies with it. Only in the PID
// namespace form: the subreaper form cannot do it, as its warning says.
func TestRunTreeLeaseholdKilled(t *testing.T) {
	srv := etcdServer(t)
	log := filepath.Join(t.TempDir(), "log")
	script := `setsid sh -c '( trap "" TERM HUP; while :; do echo "d token=$LEASEHOLD_TOKEN" >> "$LOG"; sleep .05; done ) &'
( trap '' TERM; while :; do echo "gc token=$LEASEHOLD_TOKEN" >> "$LOG"; sleep .05; done ) & wait`
	a := startProc(t, []string{"LOG=" + log}, "run", "--store", "etcd://"+srv+"/t", "--election", "jobs/z", "--ttl", "2s",
		"--log-level", "error", "--", "sh", "-c", script)
	a.token(t, 20*time.Second)
	waitFor(t, 10*time.Second, "lines of the job and of the daemon", func() bool {
		ls := logLines(log)
		return countWith(ls, "gc token=") > 0 && countWith(ls, "d token=") > 0
	})
	if n := len(tagged(a.tag, a.c.Process.Pid)); n < 4 {
		t.Fatalf("%d processes in the term, want at least 4 (init, sh, job, daemon)", n)
	}
	_ = a.c.Process.Kill()
	waitFor(t, 5*time.Second, "the term's processes gone after leasehold's SIGKILL", func() bool {
		return len(tagged(a.tag, a.c.Process.Pid)) == 0
	})
	a.checkWarning(t, treeModes[0])
}

// TestRunSignalExitCode: SIGTERM or SIGINT end run with 128+signal, as a
// shell reports it, whether it campaigns or leads; the leader's tree is
// gone when it has exited.
func TestRunSignalExitCode(t *testing.T) {
	srv := etcdServer(t)
	args := func(id string) []string {
		return []string{"run", "--store", "etcd://" + srv + "/t", "--election", "jobs/s", "--ttl", "2s",
			"--identity", id, "--log-level", "error", "--", "sh", "-c", grandchildTERM}
	}
	log := []string{"LOG=" + filepath.Join(t.TempDir(), "log")}
	a := startProc(t, log, args("A")...)
	a.token(t, 20*time.Second)
	b := startProc(t, log, args("B")...)
	// B prints nothing while it campaigns: wait until etcd holds its entry
	// in the queue, behind A's key (A, which leads, has none; the
	// candidate records are elsewhere).
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	waitFor(t, 10*time.Second, "B's queue entry", func() bool {
		r, err := cli.Get(context.Background(), "", clientv3.WithPrefix(), clientv3.WithKeysOnly())
		if err != nil {
			return false
		}
		for _, kv := range r.Kvs {
			if strings.Contains(string(kv.Key), "/"+backends.QueueSegment+"/") {
				return true
			}
		}
		return false
	})
	_ = b.c.Process.Signal(syscall.SIGTERM)
	if code := b.code(t, 10*time.Second); code != 128+int(syscall.SIGTERM) {
		t.Errorf("campaigning, SIGTERM: exit %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	_ = a.c.Process.Signal(syscall.SIGINT)
	if code := a.code(t, 10*time.Second); code != 128+int(syscall.SIGINT) {
		t.Errorf("leading, SIGINT: exit %d, want %d", code, 128+int(syscall.SIGINT))
	}
	if left := tagged(a.tag, 0); len(left) > 0 {
		t.Errorf("the term's processes live on after leasehold exited: %+v", left)
	}
}

// TestRunTreeUnprivileged: run as an unprivileged user (uid 65534) gets the
// PID namespace inside a user namespace of its own, where the kernel
// permits one (else it warns, and the test skips with the kernel's
// reason); SIGKILLing leasehold then ends the whole term, as for root.
func TestRunTreeUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to start leasehold as uid 65534")
	}
	srv := etcdServer(t)
	dir, err := os.MkdirTemp("", "leasehold-unpriv-") // t.TempDir's parent is private to root
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", strings.Join(logLines(filepath.Join(dir, "log")), "\n"))
		}
	})
	for _, d := range []string{dir, binDirOf(t)} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "log")
	script := `setsid sh -c '( trap "" TERM HUP; while :; do echo "d uid=$(id -u) $(grep CapEff /proc/self/status) token=$LEASEHOLD_TOKEN" >> "$LOG"; sleep .05; done ) &'; exec sleep 1000`
	a := startProcAs(t, 65534, []string{"LOG=" + log, "HOME=" + dir}, "run", "--store", "etcd://"+srv+"/t", "--election", "jobs/u",
		"--ttl", "2s", "--log-level", "error", "--", "sh", "-c", script)
	a.token(t, 20*time.Second)
	a.stderr.mu.Lock()
	out := a.stderr.all.String()
	a.stderr.mu.Unlock()
	if i := strings.Index(out, "warning:"); i >= 0 {
		t.Skipf("the kernel refuses an unprivileged PID namespace here: %s", out[i:])
	}
	waitFor(t, 10*time.Second, "the daemon's lines, as uid 65534 without capabilities", func() bool { return countWith(logLines(log), "d uid=65534 CapEff:\t0000000000000000 token=") > 0 })
	_ = a.c.Process.Kill()
	waitFor(t, 5*time.Second, "the term's processes gone after leasehold's SIGKILL", func() bool {
		return len(tagged(a.tag, a.c.Process.Pid)) == 0
	})
}

// binDirOf is the directory of the built leasehold.
func binDirOf(t *testing.T) string { return filepath.Dir(binary(t)) }

// startProcAs is startProc as user uid (and group uid).
func startProcAs(t *testing.T, uid uint32, env []string, args ...string) *leaseholdProc {
	t.Helper()
	return startProcWith(t, &syscall.Credential{Uid: uid, Gid: uid}, env, args...)
}

// TestRunTreeReapsOrphans: in the subreaper form, daemons of a running
// term that exit are reaped at once, not left as zombies of leasehold
// until the term ends.
func TestRunTreeReapsOrphans(t *testing.T) {
	srv := etcdServer(t)
	log := filepath.Join(t.TempDir(), "log")
	script := `for i in 1 2 3; do setsid sh -c '( sleep .1; echo done >> "$LOG" ) &'; done; exec sleep 1000`
	a := startProc(t, append([]string{"LOG=" + log}, treeModes[1].env...), "run", "--store", "etcd://"+srv+"/t",
		"--election", "jobs/r", "--ttl", "2s", "--log-level", "error", "--", "sh", "-c", script)
	a.token(t, 20*time.Second)
	waitFor(t, 10*time.Second, "the daemons' lines", func() bool { return countWith(logLines(log), "done") == 3 })
	waitFor(t, 5*time.Second, "leasehold's only descendant is CMD: the exited daemons are reaped", func() bool {
		return len(descendants(a.c.Process.Pid)) == 1
	})
}

// TestInitLifeline: the init exits, and so ends its namespace, when the
// lifeline's write end closes, even without Pdeathsig (which a leasehold
// dying before the init set it would not trigger).
func TestInitLifeline(t *testing.T) {
	tr, warning, err := chooseTree()
	if err != nil {
		t.Fatal(err)
	}
	if tr.pidns == nil {
		t.Skip(warning)
	}
	c, lifeline, err := tr.command(time.Second, "/bin/sh", []string{"sh", "-c", "trap '' TERM; sleep 1000"})
	if err != nil {
		t.Fatal(err)
	}
	c.SysProcAttr.Pdeathsig = 0
	ch, err := spawn(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "sleep started in the namespace", func() bool { return len(descendants(ch.pid)) >= 1 })
	lifeline.Close()
	select {
	case <-ch.exited:
		if code := ch.code(); code != 137 {
			t.Errorf("init exit code %d, want 137", code)
		}
	case <-time.After(5 * time.Second):
		_ = c.Process.Kill()
		t.Fatal("the init did not exit within 5s of the lifeline's close")
	}
}

// TestInitRefusedOutsideNamespace: the hidden init command refuses to run
// unless it is PID 1 (its kill(-1) would reach every process the user may
// signal).
func TestInitRefusedOutsideNamespace(t *testing.T) {
	p := startProc(t, nil, initArg, "1s", "/bin/true", "true")
	if code := p.code(t, 10*time.Second); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	p.stderr.await(t, "internal to leasehold run", time.Second)
}
