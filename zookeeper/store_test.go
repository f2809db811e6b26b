package zookeeper

import (
	"context"
	"errors"
	"runtime"
	"slices"
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
		{[]string{unreachable}, Options{NoWorldRead: true}, "NoWorldRead needs Auth"},
		{[]string{unreachable}, Options{NoWorldRead: true, Auth: alice, ACL: zk.WorldACL(zk.PermRead)}, "NoWorldRead and ACL"},
		{[]string{unreachable}, Options{Auth: []Auth{{Scheme: "digest", Credentials: []byte("secret")}}}, "user:password"},
		{[]string{unreachable}, Options{Auth: []Auth{{Scheme: "digest", Credentials: []byte(":secret")}}}, "user:password"},
	}
	for _, c := range cases {
		s, err := New(c.servers, c.opts)
		if err == nil {
			s.Close()
			t.Errorf("New(%q, %+v) succeeded, want an error with %q", c.servers, c.opts, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("New(%q, %+v) = %v, want an error with %q and no password", c.servers, c.opts, err, c.want)
		}
	}
}

var alice = []Auth{{Scheme: "digest", Credentials: []byte("alice:secret")}}

// TestDefaultACL: without credentials the nodes are open; with them, all
// rights go to the credentials' identities and read to the world, unless
// NoWorldRead; an ACL given is kept.
func TestDefaultACL(t *testing.T) {
	creator, world := zk.AuthACL(zk.PermAll), zk.WorldACL(zk.PermAll)
	worldRead := zk.WorldACL(zk.PermRead)
	mine := zk.DigestACL(zk.PermAll, "bob", "pw")
	cases := []struct {
		opts Options
		want []zk.ACL
	}{
		{Options{}, world},
		{Options{Auth: alice}, append(slices.Clone(creator), worldRead...)},
		{Options{Auth: alice, NoWorldRead: true}, creator},
		{Options{Auth: alice, ACL: mine}, mine},
		{Options{ACL: mine}, mine},
	}
	for _, c := range cases {
		if got := c.opts.withDefaults().ACL; !slices.Equal(got, c.want) {
			t.Errorf("ACL of %+v = %v, want %v", c.opts, got, c.want)
		}
	}
}

func TestIdentityHidesPasswords(t *testing.T) {
	got := identity([]Auth{{Scheme: "digest", Credentials: []byte("alice:secret:x")}, {Scheme: "ip"}})
	if got != "digest:alice, ip" {
		t.Fatalf("identity = %q, want \"digest:alice, ip\"", got)
	}
	if got := identity(nil); !strings.Contains(got, "world:anyone") {
		t.Fatalf("identity(nil) = %q, want world:anyone named", got)
	}
}

func TestLimitsAndPath(t *testing.T) {
	s := newUnreachable(t, Options{TickTime: 200 * time.Millisecond, Prefix: "/x/y"})
	want := backends.Capabilities{Name: "zookeeper", Limits: backends.Limits{MinTTL: 400 * time.Millisecond, MaxTTL: 4 * time.Second,
		TTLGranularity: time.Millisecond, MaxValueSize: MaxValueSize}, Passes: true, CommittedWaits: true}
	if got := s.Capabilities(); got != want {
		t.Errorf("Capabilities = %+v, want %+v", got, want)
	}
	if got := s.leaderPath("a/b"); got != "/x/y/a%2Fb" {
		t.Errorf("Path = %q, want /x/y/a%%2Fb", got)
	}
	if got := s.queuePath("a/b"); got != "/x/y/~queue/a%2Fb" {
		t.Errorf("queuePath = %q, want /x/y/~queue/a%%2Fb", got)
	}
	if got := s.dataPath("k/v"); got != "/x/y/~data/k%2Fv" {
		t.Errorf("dataPath = %q, want /x/y/~data/k%%2Fv", got)
	}
	d := newUnreachable(t, Options{MaxTTL: time.Minute})
	if got := d.Capabilities(); got.MinTTL != 4*time.Second || got.MaxTTL != time.Minute {
		t.Errorf("default Limits = %+v, want MinTTL 4s (2×2s tick), MaxTTL 1m as set", got)
	}
}

func newUnreachable(t *testing.T, opts Options) *store {
	t.Helper()
	opts.ConnOptions = quiet()
	s, err := open([]string{unreachable}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	return s
}

// TestUnreachableCallsEndWithContext: with no server, every call returns
// by the time its context ends: with ErrCanceled and the context's error,
// or with ErrUnavailable if go-zookeeper gave up on the request unsent.
func TestUnreachableCallsEndWithContext(t *testing.T) {
	s := newUnreachable(t, Options{})
	calls := map[string]func(ctx context.Context) error{
		"Get":        func(ctx context.Context) error { _, err := s.Get(ctx, "a"); return err },
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
	_, err := s.Get(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), "election name is empty") {
		t.Fatalf("Get of an empty name: %v, want an error saying so", err)
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
	_, _ = storeOf(s).NewSession(ctx, 4*time.Second)
	_, _ = storeOf(s).Get(ctx, "a")
	s.Close()
	s.Close()
	if g := adapterGoroutines(); g != "" {
		t.Fatalf("after Close:\n%s", g)
	}
	if _, err := storeOf(s).Get(context.Background(), "a"); err == nil {
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
