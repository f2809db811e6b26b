package main

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// lines is an io.Writer that hands each complete line to a channel.
type lines struct {
	mu  sync.Mutex
	buf []byte
	ch  chan string
	all strings.Builder
}

func newLines() *lines { return &lines{ch: make(chan string, 1000)} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all.Write(p)
	l.buf = append(l.buf, p...)
	for {
		i := strings.IndexByte(string(l.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		l.ch <- string(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

// await returns the first line containing want, failing after d.
func (l *lines) await(t *testing.T, want string, d time.Duration) string {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case s := <-l.ch:
			if strings.Contains(s, want) {
				return s
			}
		case <-deadline:
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("no line with %q within %v; output:\n%s", want, d, l.all.String())
		}
	}
}

// stamp parses the time runner.logf puts after "leasehold: ".
func stamp(t *testing.T, line string) time.Time {
	t.Helper()
	f := strings.Fields(line)
	ts, err := time.Parse(time.RFC3339Nano, f[1])
	if err != nil {
		t.Fatalf("no time in %q: %v", line, err)
	}
	return ts
}

// proxy forwards 127.0.0.1 connections to target until cut.
type proxy struct {
	l     net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l}
	go p.serve(target)
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) serve(target string) {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(u, c); u.Close() }()
		go func() { _, _ = io.Copy(c, u); c.Close() }()
	}
}

// cut drops every connection and refuses new ones, as a network cut would.
func (p *proxy) cut() {
	p.l.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// instance is one leasehold command running in the test process; its
// child is a real OS process.
type instance struct {
	stdout, stderr *lines
	cancel         context.CancelFunc
	code           chan int
}

func start(t *testing.T, args ...string) *instance {
	ctx, cancel := context.WithCancel(context.Background())
	in := &instance{stdout: newLines(), stderr: newLines(), cancel: cancel, code: make(chan int, 1)}
	go func() { in.code <- run(ctx, args, in.stdout, in.stderr) }()
	t.Cleanup(func() { cancel(); <-in.code })
	return in
}

func (in *instance) exit(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case c := <-in.code:
		in.code <- c
		return c
	case <-time.After(d):
		t.Fatalf("leasehold did not exit within %v", d)
	}
	return -1
}

func etcdServer(t *testing.T) string {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.Endpoint, "http://")
}

// ignoreTERM is a child that survives SIGTERM, so only SIGKILL ends it.
const ignoreTERM = `trap "" TERM; test -n "$LEASEHOLD_TOKEN" || exit 9; while :; do sleep 0.05; done`

// storeCase is a real store for the run tests: its address, URL scheme and
// query, and the TTL to use.
type storeCase struct {
	name, scheme, query string
	addr                func(t *testing.T) string
	ttl                 time.Duration
}

var storeCases = []storeCase{
	{"etcd", "etcd", "", etcdServer, 2 * time.Second},
	{"zookeeper", "zk", "?tick=200ms", func(t *testing.T) string { return stores.ZooKeeper(t, 1)[0] }, 2 * time.Second},
	{"consul", "consul", "", func(t *testing.T) string { return stores.Consul(t, 1)[0] }, 10 * time.Second},
}

// TestRunKillsChildBeforeSuccessor: on each store, the leader's link is
// cut; its child, which ignores SIGTERM, is SIGKILLed and gone before the
// successor's child starts.
func TestRunKillsChildBeforeSuccessor(t *testing.T) {
	for _, sc := range storeCases {
		t.Run(sc.name, func(t *testing.T) { testKillsChildBeforeSuccessor(t, sc) })
	}
}

func testKillsChildBeforeSuccessor(t *testing.T, sc storeCase) {
	srv := sc.addr(t)
	px := newProxy(t, srv)
	url := func(addr string) string { return sc.scheme + "://" + addr + "/t" + sc.query }
	common := []string{"--election", "jobs/x", "--ttl", sc.ttl.String(), "--log-level", "error"}
	a := start(t, append(append([]string{"run", "--store", url(px.l.Addr().String()), "--identity", "A"}, common...), "--", "sh", "-c", ignoreTERM)...)
	a.stderr.await(t, "started child", 20*time.Second)
	// B waits in key mode, A in the default queue mode: the mode must not
	// change the outcome.
	b := start(t, append(append([]string{"run", "--store", url(srv), "--identity", "B", "--wait", "key"}, common...), "--", "sh", "-c", ignoreTERM)...)
	cut := time.Now()
	px.cut()
	stopped := stamp(t, a.stderr.await(t, "stopped", sc.ttl+5*time.Second))
	started := stamp(t, b.stderr.await(t, "started child", 3*sc.ttl+5*time.Second))
	if !stopped.Before(started) {
		t.Fatalf("old child gone at %v, new child started at %v: overlap", stopped, started)
	}
	t.Logf("%s, TTL %v: cut → old child SIGKILLed and gone after %v; successor's child started after %v (gap %v)",
		sc.name, sc.ttl, stopped.Sub(cut), started.Sub(cut), started.Sub(stopped))
}

// TestRunExitsWithChild: when the child exits, leasehold resigns and exits
// with its code; status then reports no leader.
func TestRunExitsWithChild(t *testing.T) {
	srv := etcdServer(t)
	store := "etcd://" + srv + "/t"
	a := start(t, "run", "--store", store, "--election", "jobs/y", "--ttl", "2s", "--", "sh", "-c", `test -n "$LEASEHOLD_TOKEN" && exit 7`)
	if code := a.exit(t, 10*time.Second); code != 7 {
		t.Fatalf("exit code %d, want the child's 7\n%s", code, a.stderr.all.String())
	}
	st := start(t, "status", "--store", store, "--election", "jobs/y")
	if code := st.exit(t, 10*time.Second); code != exitNoLeader {
		t.Fatalf("status after the run ended: exit %d, want %d (no leader)", code, exitNoLeader)
	}
	js := start(t, "status", "--store", store, "--election", "jobs/y", "--json")
	if code := js.exit(t, 10*time.Second); code != exitNoLeader {
		t.Fatalf("status --json after the run ended: exit %d, want %d (no leader)", code, exitNoLeader)
	}
	if out := js.stdout.all.String(); !strings.Contains(out, `"leader":false`) || strings.Contains(out, `"since"`) {
		t.Fatalf("status --json without a leader = %s; want leader false and no since", out)
	}
}

// TestStatusAndObserve: observe streams leader changes including "no
// leader"; status shows the leader and its token.
func TestStatusAndObserve(t *testing.T) {
	srv := etcdServer(t)
	store := "etcd://" + srv + "/t"
	obs := start(t, "observe", "--store", store, "--election", "jobs/z")
	obs.stdout.await(t, "no leader", 10*time.Second)
	r := start(t, "run", "--store", store, "--election", "jobs/z", "--ttl", "2s", "--identity", "worker-1", "--", "sh", "-c", "sleep 60")
	line := obs.stdout.await(t, "leader worker-1 token", 10*time.Second)
	st := start(t, "status", "--store", store, "--election", "jobs/z", "--json")
	if code := st.exit(t, 10*time.Second); code != 0 {
		t.Fatalf("status exit %d", code)
	}
	js := st.stdout.await(t, `"leader":true`, time.Second)
	if !strings.Contains(js, `"identity":"worker-1"`) {
		t.Fatalf("status --json = %s", js)
	}
	r.cancel()
	obs.stdout.await(t, "no leader", 10*time.Second)
	t.Logf("observed: %s", line)
}

// TestUsageErrors: bad command lines fail with one actionable line and
// exit code 2.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"nonsense"},
		{"run", "--election", "a", "--", "true"},
		{"run", "--store", "etcd://127.0.0.1:1/x", "--election", "a"},
		{"run", "--store", "etcd://127.0.0.1:1/x", "--election", "a", "--on-loss", "panic", "--", "true"},
		{"status", "--store", "etcd://127.0.0.1:1/x"},
	} {
		in := start(t, args...)
		if code := in.exit(t, 10*time.Second); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		out := in.stderr.all.String()
		if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "leasehold: ") {
			t.Errorf("%v: stderr %q, want one line starting with leasehold:", args, out)
		}
	}
}
