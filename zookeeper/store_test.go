package zookeeper

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// unreachable is a loopback address nothing listens on.
const unreachable = "127.0.0.1:1"

func quiet() []func(*zk.Conn) { return []func(*zk.Conn){zk.WithLogger(nopLogger{})} }

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}

func TestNewBadInput(t *testing.T) {
	cases := []struct {
		servers []string
		opts    Options
		want    string // in the error
	}{
		{nil, Options{}, "no servers"},
		{[]string{unreachable}, Options{Prefix: "leasehold"}, `Prefix: path "leasehold"`},
		{[]string{unreachable}, Options{Prefix: "/a/\x01"}, `"/a/\x01"`},
		{[]string{unreachable}, Options{Prefix: "/"}, `Prefix "/"`},
		{[]string{unreachable}, Options{Prefix: "/zookeeper/x"}, "reserved"},
		{[]string{unreachable}, Options{ACL: []zk.ACL{}}, "ACL"},
		{[]string{unreachable}, Options{TickTime: -time.Second}, "TickTime"},
		{[]string{unreachable}, Options{MinTTL: 5 * time.Second, MaxTTL: time.Second}, "MinTTL"},
		{[]string{unreachable}, Options{MinTTL: 1500 * time.Microsecond}, "whole milliseconds"},
		{[]string{unreachable}, Options{Auth: []Auth{{Credentials: []byte("u:p")}}}, "Auth[0]"},
		{[]string{"no-port-and:bad:host"}, Options{}, "connect to"},
	}
	for _, c := range cases {
		s, err := New(c.servers, c.opts)
		if err == nil {
			s.Close()
			t.Errorf("New(%q, %+v) succeeded, want an error with %q", c.servers, c.opts, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q, %+v) = %v, want an error with %q", c.servers, c.opts, err, c.want)
		}
	}
}

func TestLimitsAndPath(t *testing.T) {
	s := newUnreachable(t, Options{TickTime: 200 * time.Millisecond, Prefix: "/x/y"})
	want := backends.Limits{MinTTL: 400 * time.Millisecond, MaxTTL: 4 * time.Second,
		TTLGranularity: time.Millisecond, MaxValueSize: MaxValueSize}
	if got := s.Limits(); got != want {
		t.Errorf("Limits = %+v, want %+v", got, want)
	}
	if got := s.Path("a/b"); got != "/x/y/a/b" {
		t.Errorf("Path = %q, want /x/y/a/b", got)
	}
	d := newUnreachable(t, Options{MaxTTL: time.Minute})
	if got := d.Limits(); got.MinTTL != 4*time.Second || got.MaxTTL != time.Minute {
		t.Errorf("default Limits = %+v, want MinTTL 4s (2×2s tick), MaxTTL 1m as set", got)
	}
}

func newUnreachable(t *testing.T, opts Options) *Store {
	t.Helper()
	opts.ConnOptions = quiet()
	s, err := New([]string{unreachable}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestUnreachableCallsEndWithContext: with no server, every call returns
// by the time its context ends: with ErrCanceled and the context's error,
// or with ErrUnavailable if go-zookeeper gave up on the request unsent.
func TestUnreachableCallsEndWithContext(t *testing.T) {
	s := newUnreachable(t, Options{})
	calls := map[string]func(ctx context.Context) error{
		"Get": func(ctx context.Context) error { _, err := s.Get(ctx, "a"); return err },
		"Wait": func(ctx context.Context) error {
			_, err := s.Wait(ctx, backends.Record{Election: "a", Revision: 1})
			return err
		},
		"NewSession": func(ctx context.Context) error { _, err := s.NewSession(ctx, 4*time.Second); return err },
	}
	for name, call := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		err := call(ctx)
		cancel()
		canceled := errors.Is(err, backends.ErrCanceled) && errors.Is(err, context.DeadlineExceeded)
		if !canceled && !errors.Is(err, backends.ErrUnavailable) {
			t.Errorf("%s: %v, want ErrCanceled and DeadlineExceeded, or ErrUnavailable", name, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s took %v on a 100ms context", name, d)
		}
	}
}

func TestBadElectionPath(t *testing.T) {
	s := newUnreachable(t, Options{})
	_, err := s.Get(context.Background(), "a\x00b")
	if err == nil || !strings.Contains(err.Error(), `"/leasehold/a\x00b"`) {
		t.Fatalf("Get of a name that is no ZooKeeper path: %v, want an error naming the path", err)
	}
}

// TestCloseLeavesNoGoroutines: Close waits for the Store's goroutines and
// go-zookeeper's.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	s, err := New([]string{unreachable}, Options{ConnOptions: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _ = s.NewSession(ctx, 4*time.Second)
	_, _ = s.Get(ctx, "a")
	s.Close()
	s.Close()
	if g := adapterGoroutines(); g != "" {
		t.Fatalf("after Close:\n%s", g)
	}
	if _, err := s.Get(context.Background(), "a"); err == nil {
		t.Fatal("Get after Close succeeded")
	}
}

// adapterGoroutines returns the stacks of parked goroutines running
// go-zookeeper or this package's code. A goroutine still running or in a
// system call is finishing, not leaked: go-zookeeper's sender closes its
// socket after it signals that it is done.
func adapterGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		finishing := strings.Contains(head, "[running]") || strings.Contains(head, "[runnable]") ||
			strings.Contains(head, "[syscall]")
		ours := strings.Contains(g, "go-zookeeper/zk.") || strings.Contains(g, "leasehold/zookeeper.(*")
		if ours && !finishing {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}

// TestNewSessionUnreachable: with every server refusing connections,
// NewSession fails with ErrUnavailable as soon as go-zookeeper has tried
// them all, not at its context's end.
func TestNewSessionUnreachable(t *testing.T) {
	s := newUnreachable(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	ss, err := s.NewSession(ctx, 4*time.Second)
	if !errors.Is(err, backends.ErrUnavailable) || ss != nil {
		t.Fatalf("NewSession = %v, %v; want ErrUnavailable", ss, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("NewSession took %v to give up", d)
	}
}
