package watchset_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/internal/watchset"
)

var server *embedetcd.Server

func TestMain(m *testing.M) {
	srv, err := embedetcd.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "embedded etcd:", err)
		os.Exit(1)
	}
	server = srv
	code := m.Run()
	srv.Close()
	os.Exit(code)
}

// fixture is a Set on a kvSource with a prefix of the test's own, whose
// answers go to ch unless the test gives its own deliver.
type fixture struct {
	t   *testing.T
	c   *clientv3.Client
	src *kvSource
	set *watchset.Set[clientv3.WatchResponse]
	ch  chan backends.Change
}

func newFixture(t *testing.T, deliver func(backends.Change)) *fixture {
	c, err := server.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	f := &fixture{t: t, c: c, ch: make(chan backends.Change, 64),
		src: &kvSource{c: c, prefix: "/" + strings.ReplaceAll(t.Name(), "/", "-") + "/", stops: make(chan context.CancelFunc, 8)}}
	if deliver == nil {
		deliver = func(ch backends.Change) { f.ch <- ch }
	}
	f.set = watchset.New[clientv3.WatchResponse]("test", f.src, deliver)
	t.Cleanup(func() { _ = f.set.Close() })
	return f
}

// put writes v at el's key (a roster record if el holds "~roster/") and
// returns the revision.
func (f *fixture) put(el, v string) uint64 {
	f.t.Helper()
	resp, err := f.c.Put(f.ctx(), f.src.prefix+el, v)
	if err != nil {
		f.t.Fatal(err)
	}
	return uint64(resp.Header.Revision)
}

// now returns the store's revision.
func (f *fixture) now() uint64 {
	f.t.Helper()
	resp, err := f.c.Get(f.ctx(), "/")
	if err != nil {
		f.t.Fatal(err)
	}
	return uint64(resp.Header.Revision)
}

func (f *fixture) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	f.t.Cleanup(cancel)
	return ctx
}

// next returns the next answer, within 10 s.
func (f *fixture) next() backends.Change {
	f.t.Helper()
	select {
	case c := <-f.ch:
		return c
	case <-time.After(10 * time.Second):
		f.t.Fatal("no answer within 10s")
	}
	return backends.Change{}
}

// none fails if an answer comes within d.
func (f *fixture) none(d time.Duration) {
	f.t.Helper()
	select {
	case c := <-f.ch:
		f.t.Fatalf("answer %+v, want none", c)
	case <-time.After(d):
	}
}

// TestReplaceAndTagEcho: an election has one request of each kind; a new
// Wait replaces the old, whose answer never comes, and the answer echoes
// the current Tag with the key's new state. Stop withdraws the Wait and
// leaves the roster request; Stop of WatchRoster the roster request alone.
func TestReplaceAndTagEcho(t *testing.T) {
	f := newFixture(t, nil)
	known := backends.Record{Election: "el", Revision: f.now()}
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: known})
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 3, Known: backends.Record{Election: "el", Revision: known.Revision}, Digest: 0})
	f.put("el", "a")
	if c := f.next(); c.Tag != 2 || c.Election != "el" || string(c.Record.Value) != "a" || c.Roster || c.Err != nil {
		t.Fatalf("answer %+v, want tag 2's with value a", c)
	}
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 4, Known: backends.Record{Election: "el", Revision: f.now()}})
	f.set.Stop("el", backends.WatchKey)
	f.put("~roster/el/r1", "x")
	if c := f.next(); c.Tag != 3 || !c.Roster || c.Err != nil {
		t.Fatalf("answer %+v, want roster tag 3's (Stop leaves the roster request)", c)
	}
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 5, Known: backends.Record{Election: "el", Revision: f.now()}, Digest: 0})
	f.set.Stop("el", backends.WatchRoster)
	f.put("el", "b")
	f.put("~roster/el/r2", "y")
	f.none(300 * time.Millisecond)
}

// TestCoveringRead: a Wait whose known state the store has since left is
// answered at once, by a read, with no later change to carry it.
func TestCoveringRead(t *testing.T) {
	f := newFixture(t, nil)
	before := backends.Record{Election: "el", Revision: f.now()}
	f.put("el", "a")
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: backends.Record{Election: "warm", Revision: f.now()}}) // opens the stream
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: before})
	if c := f.next(); c.Tag != 2 || string(c.Record.Value) != "a" {
		t.Fatalf("answer %+v, want tag 2's with value a", c)
	}
}

// TestDeliverOneGoroutine: deliver runs one Change at a time with no lock
// held, so it may ask again from within.
func TestDeliverOneGoroutine(t *testing.T) {
	var f *fixture
	var inside, overlap atomic.Int32
	got := make(chan backends.Change, 64)
	f = newFixture(t, func(c backends.Change) {
		if inside.Add(1) > 1 {
			overlap.Add(1)
		}
		defer inside.Add(-1)
		if c.Tag < 20 {
			f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: c.Tag + 10, Known: c.Record}) // re-ask from within deliver
		}
		got <- c
	})
	rev := f.now()
	for i := range 10 {
		f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: backends.Record{Election: fmt.Sprint("el", i), Revision: rev}})
	}
	for i := range 10 {
		f.put(fmt.Sprint("el", i), "a")
	}
	for i := range 10 {
		f.put(fmt.Sprint("el", i), "b")
	}
	for range 20 {
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("missing answers")
		}
	}
	if overlap.Load() != 0 {
		t.Fatal("deliver ran concurrently with itself")
	}
}

// TestCloseWaitsForDeliver: Close returns only after a deliver in
// progress, and nothing is delivered after it returns, though requests
// and changes go on.
func TestCloseWaitsForDeliver(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	var after atomic.Bool
	var late atomic.Int32
	f := newFixture(t, func(c backends.Change) {
		if after.Load() {
			late.Add(1)
		}
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
	})
	rev := f.now()
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: backends.Record{Election: "a", Revision: rev}})
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: backends.Record{Election: "b", Revision: rev}})
	f.put("a", "x")
	f.put("b", "x")
	<-entered
	closed := make(chan struct{})
	go func() {
		_ = f.set.Close()
		after.Store(true)
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while deliver was running")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	<-closed
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 3, Known: backends.Record{Election: "a", Revision: rev}})
	f.put("a", "y")
	time.Sleep(200 * time.Millisecond) // nothing to wait on: no delivery may come
	if late.Load() != 0 {
		t.Fatalf("%d deliveries after Close", late.Load())
	}
}

// TestRestartAfterBreak: a broken stream ends the requests pending on it
// with its error; a request made after is served by a new stream.
func TestRestartAfterBreak(t *testing.T) {
	f := newFixture(t, nil)
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: backends.Record{Election: "el", Revision: f.now()}})
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 2, Known: backends.Record{Election: "el", Revision: f.now()}, Digest: 0})
	select {
	case stop := <-f.src.stops: // the stream opened
		stop()
	case <-time.After(10 * time.Second):
		t.Fatal("no stream opened within 10s")
	}
	for range 2 {
		if c := f.next(); !errors.Is(c.Err, backends.ErrUnavailable) {
			t.Fatalf("answer %+v, want ErrUnavailable", c)
		}
	}
	f.set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 3, Known: backends.Record{Election: "el", Revision: f.now()}})
	f.put("el", "a")
	if c := f.next(); c.Tag != 3 || c.Err != nil || string(c.Record.Value) != "a" {
		t.Fatalf("answer %+v, want tag 3's with value a", c)
	}
	if n := f.src.opens.Load(); n != 2 {
		t.Fatalf("%d streams opened, want 2", n)
	}
}
