package backendtest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// testSetWaitGone: WaitGone on a queue entry is not answered while the
// entry is in place, is answered with the entry when it is dequeued, and
// at once when it is already gone.
func testSetWaitGone(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	entry := mustEnqueue(t, newSession(t, s), el)
	set, ch := watchSet(t, s)
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: entry})
	noChange(t, ch, "with the entry in place")
	if err := s.Dequeue(Context(t, 10*time.Second), entry); err != nil {
		t.Fatal(err)
	}
	c := AwaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 1)
	if c.Record.Token != entry.Token || c.Record.Owner != entry.Owner {
		t.Fatalf("WaitGone answer = %+v, want the entry %+v", c.Record, entry)
	}
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 2, Known: entry})
	wantAnswer(t, AwaitChange(t, ch, 20*time.Second), el, 2)
}

// testSetClose: Close returns promptly while answers are flowing, and no
// answer is delivered after it returns, even to requests made after it.
func testSetClose(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	const n = 20
	var closed atomic.Bool
	answered, late := make(chan struct{}, n+1), make(chan backends.Change, n+1)
	set := s.Watch(func(c backends.Change) {
		if closed.Load() {
			late <- c
		}
		answered <- struct{}{}
	})
	absent := mustGet(t, s, Election(t))
	els := make([]string, n)
	for i := range els {
		els[i] = fmt.Sprintf("%s-%d", Election(t), i)
		set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: backends.Record{Election: els[i], Revision: absent.Revision}})
	}
	done := make(chan error, 1)
	go func() { done <- createEach(t, a, els) }()
	select {
	case <-answered:
	case <-time.After(20 * time.Second):
		t.Fatal("no answer within 20s of the first create")
	}
	start := time.Now()
	if err := set.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	closed.Store(true)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Close took %v, want it prompt", d)
	}
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 99, Known: backends.Record{Election: els[0], Revision: absent.Revision}})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-late:
		t.Fatalf("answer %+v delivered after Close returned, want none", c)
	case <-time.After(quiet): // nothing to wait for: a late answer is the failure
	}
}

// createEach creates the leader keys of els on ss one after another.
func createEach(t *testing.T, ss backends.Session, els []string) error {
	for _, el := range els {
		if _, err := ss.Create(Context(t, 10*time.Second), el, []byte("x")); err != nil {
			return fmt.Errorf("Create(%q): %w", el, err)
		}
	}
	return nil
}

// testSetMany: one set answers each of 500 elections exactly once, with
// its own record: first their creates, then, asked again, their deletion
// when the session that holds them all closes.
func testSetMany(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := longSession(t, s)
	const n = 500
	base := Election(t)
	absent := mustGet(t, s, base)
	set, ch := watchSet(t, s)
	els := make([]string, n)
	for i := range els {
		els[i] = fmt.Sprintf("%s-%d", base, i)
		set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: backends.Record{Election: els[i], Revision: absent.Revision}})
	}
	createAll(t, a, els)
	got := collect(t, ch, els, func(i int, r backends.Record) bool {
		return r.Exists() && r.Owner == a.ID() && string(r.Value) == fmt.Sprint(i)
	})
	for i, r := range got {
		set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: r})
	}
	if err := a.Close(Context(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	collect(t, ch, els, func(_ int, r backends.Record) bool { return !r.Exists() })
	noChange(t, ch, "after every request was answered")
}

// longSession returns a session of s with a TTL of 30 s, or the nearest
// the store grants, renewed every third of its TTL until t ends, so that
// it outlives the test's many creates.
func longSession(t *testing.T, s backends.Driver) backends.Session {
	t.Helper()
	l := s.Capabilities()
	ss, err := s.NewSession(Context(t, 10*time.Second), min(max(30*time.Second, l.MinTTL), l.MaxTTL))
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go renew(ss, stop, done)
	t.Cleanup(func() {
		close(stop)
		<-done
		closeSession(ss)
	})
	return ss
}

// renew renews ss every third of its TTL until stop closes; it closes
// done when it returns. A failed renewal shows up as the test's creates
// failing.
func renew(ss backends.Session, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(ss.TTL() / 3)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), ss.TTL()/3)
			_ = ss.KeepAlive(ctx)
			cancel()
		}
	}
}

// createAll creates the leader key of each of els on ss, with its index
// as value, a few at a time.
func createAll(t *testing.T, ss backends.Session, els []string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(els))
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(els); i += 8 {
				if _, err := ss.Create(Context(t, 30*time.Second), els[i], []byte(fmt.Sprint(i))); err != nil {
					errs <- fmt.Errorf("Create(%q): %w", els[i], err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// collect reads one answer per election of els (tag = index), each
// satisfying ok, and returns their records by index.
func collect(t *testing.T, ch <-chan backends.Change, els []string, ok func(int, backends.Record) bool) []backends.Record {
	t.Helper()
	got := make([]backends.Record, len(els))
	seen := make([]bool, len(els))
	for range els {
		c := AwaitChange(t, ch, 60*time.Second)
		i := int(c.Tag)
		if i >= len(els) || c.Election != els[i] || c.Record.Election != els[i] {
			t.Fatalf("answer %+v matches no request", c)
		}
		if seen[i] {
			t.Fatalf("election %q answered twice: %+v", els[i], c)
		}
		if !ok(i, c.Record) {
			t.Fatalf("answer to %q = %+v, not its own new state", els[i], c.Record)
		}
		seen[i], got[i] = true, c.Record
	}
	return got
}

// testSetSevered: when the set's connection is severed, a pending request
// ends with an error, not silence, and so does one made after.
func testSetSevered(t *testing.T, h Harness) {
	s, sever := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	set, ch := watchSet(t, s)
	before := mustGet(t, s, el)
	rec := mustCreate(t, a, el, "alice")
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: before}) // answered: the stream is up
	wantAnswer(t, AwaitChange(t, ch, 20*time.Second), el, 1)
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: rec})
	sever()
	for _, tag := range []uint64{2, 3} {
		if tag == 3 {
			set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 3, Known: rec})
		}
		select {
		case c := <-ch:
			if c.Err == nil || c.Tag != tag || c.Election != el {
				t.Fatalf("answer after sever = %+v, want an error for tag %d", c, tag)
			}
			t.Logf("tag %d after sever: %v", tag, c.Err)
		case <-time.After(30 * time.Second):
			t.Fatalf("request %d not ended within 30s of the sever", tag)
		}
	}
}
