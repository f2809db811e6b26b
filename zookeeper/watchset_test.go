package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
)

// watchOn starts a WatchSet on s whose Changes go to the channel
// returned, which holds 16,384 (deliver blocks if it is full).
func watchOn(t *testing.T, s *store) (backends.WatchSet, <-chan backends.Change) {
	t.Helper()
	ch := make(chan backends.Change, 1<<14)
	w := s.Watch(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = w.Close() })
	return w, ch
}

// nextChange returns the next Change, failing t after 20s.
func nextChange(t *testing.T, ch <-chan backends.Change) backends.Change {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(20 * time.Second):
		t.Fatal("no Change within 20s")
	}
	return backends.Change{}
}

// watchFixture is a Store with a session, and a second Store (a peer
// process) with a session that holds the elections the test watches.
type watchFixture struct {
	servers []string
	tick    time.Duration
	s, peer *store
	ss, pss backends.Session
	ctx     context.Context
}

func newWatchFixture(t testing.TB) *watchFixture {
	t.Helper()
	servers, tick := testServers(t)
	f := &watchFixture{servers: servers, tick: tick, ctx: testCtx(t),
		s: newStore(t, servers, Options{TickTime: tick}), peer: newStore(t, servers, Options{TickTime: tick})}
	f.ss = retiringRead(t, f.s, tick)
	f.pss = retiringRead(t, f.peer, tick)
	return f
}

// retiringRead opens a session on s and waits until s has closed its own
// connection, which the session's takes over.
func retiringRead(t testing.TB, s *store, tick time.Duration) backends.Session {
	t.Helper()
	s.mu.Lock()
	read := s.read
	s.mu.Unlock()
	ss, err := s.NewSession(testCtx(t), max(3*time.Second, 2*tick))
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	left := s.read
	s.mu.Unlock()
	if got := s.readers(); got != "session" || left != nil {
		t.Fatalf("with a session: reader %s, own connection %p; want the session's and none", got, left)
	}
	read.close() // waits for the close NewSession started
	return ss
}

func (f *watchFixture) create(t *testing.T, el string) backends.Record {
	t.Helper()
	rec, err := f.pss.Create(f.ctx, el, []byte("peer"))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func (f *watchFixture) get(t *testing.T, el string) backends.Record {
	t.Helper()
	rec, err := f.s.Get(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestWatchSetWait: a Wait is answered at once when the node already
// differs, and otherwise on its creation, on its deletion (as absent, at
// a higher revision), each with its request's tag; changes to other
// elections answer nothing.
func TestWatchSetWait(t *testing.T) {
	f := newWatchFixture(t)
	w, ch := watchOn(t, f.s)
	el, other := uniqueName("ws-"), uniqueName("ws-other-")
	absent := f.get(t, el)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: absent})
	rec := f.create(t, el)
	if c := nextChange(t, ch); c.Tag != 1 || c.Election != el || c.Err != nil || c.Record.Token != rec.Token {
		t.Fatalf("after create: %+v, want tag 1 and token %d", c, rec.Token)
	}
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: absent}) // already differs
	if c := nextChange(t, ch); c.Tag != 2 || c.Record.Token != rec.Token {
		t.Fatalf("Wait from a past state: %+v, want token %d at once", c, rec.Token)
	}
	held := f.get(t, el)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 3, Known: held})
	f.create(t, other)
	if err := backendtest.Release(f.ctx, f.pss, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	c := nextChange(t, ch)
	if c.Tag != 3 || c.Err != nil || c.Record.Exists() || c.Record.Revision <= held.Revision {
		t.Fatalf("after delete: %+v, want tag 3, absent above revision %d", c, held.Revision)
	}
}

// TestWatchSetStopAndReplace: a stopped request and a replaced one are
// not answered; the replacing one is. Answers on one connection come in
// the order of their notifications, so the answer to a later request
// proves an earlier change delivered nothing.
func TestWatchSetStopAndReplace(t *testing.T) {
	f := newWatchFixture(t)
	w, ch := watchOn(t, f.s)
	a, b, probe := uniqueName("ws-a-"), uniqueName("ws-b-"), uniqueName("ws-probe-")
	ra, rb := f.create(t, a), f.create(t, b)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: f.get(t, a)})
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: f.get(t, b)})
	w.Stop(a, backends.WatchKey)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 3, Known: f.get(t, b)}) // replaces 2
	for el, tok := range map[string]uint64{a: ra.Token, b: rb.Token} {
		if err := backendtest.Release(f.ctx, f.pss, el, tok); err != nil {
			t.Fatal(err)
		}
	}
	if c := nextChange(t, ch); c.Tag != 3 || c.Record.Exists() {
		t.Fatalf("first Change %+v, want tag 3 (b gone)", c)
	}
	f.create(t, probe)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 4, Known: backends.Record{Election: probe}})
	if c := nextChange(t, ch); c.Tag != 4 {
		t.Fatalf("Change %+v, want only the probe's (tag 4)", c)
	}
}

// TestWatchSetWaitGone: an absent entry, or Token 0, is gone at once; a
// present one when it is dequeued.
func TestWatchSetWaitGone(t *testing.T) {
	f := newWatchFixture(t)
	w, ch := watchOn(t, f.s)
	el := uniqueName("ws-queue-")
	entry, err := f.pss.Enqueue(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: backends.Record{Election: el}})
	if c := nextChange(t, ch); c.Tag != 1 || c.Err != nil {
		t.Fatalf("WaitGone of no entry: %+v, want tag 1 at once", c)
	}
	w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 2, Known: entry})
	if err := f.peer.Dequeue(f.ctx, entry); err != nil {
		t.Fatal(err)
	}
	if c := nextChange(t, ch); c.Tag != 2 || c.Err != nil || c.Record.Token != entry.Token {
		t.Fatalf("after Dequeue: %+v, want tag 2 with the entry", c)
	}
	w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 3, Known: entry})
	if c := nextChange(t, ch); c.Tag != 3 || c.Err != nil {
		t.Fatalf("WaitGone of a dequeued entry: %+v, want tag 3 at once", c)
	}
}

// TestWatchSetMovesWithItsConnection: the set watches on the Store's
// session's connection; when that session closes, its watches move to
// the Store's own connection, and still see the next change.
func TestWatchSetMovesWithItsConnection(t *testing.T) {
	f := newWatchFixture(t)
	w, ch := watchOn(t, f.s)
	el := uniqueName("ws-move-")
	rec := f.create(t, el)
	watching := hookWatching(t)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: f.get(t, el)})
	awaitWatching(t, watching, el)
	if got := f.s.readers(); got != "session" {
		t.Fatalf("reader with a session open: %s, want the session's connection", got)
	}
	if err := f.ss.Close(f.ctx); err != nil {
		t.Fatal(err)
	}
	if err := backendtest.Release(f.ctx, f.pss, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	if c := nextChange(t, ch); c.Tag != 1 || c.Err != nil || c.Record.Exists() {
		t.Fatalf("after its session closed and the node went: %+v, want tag 1 absent", c)
	}
	if got := f.s.readers(); got != "read" {
		t.Fatalf("reader with no session: %s, want the Store's own connection", got)
	}
}

// TestWatchSetClose: after Close nothing is delivered, and Store.Close
// closes the sets left open.
func TestWatchSetClose(t *testing.T) {
	f := newWatchFixture(t)
	delivered := make(chan backends.Change, 8)
	w := f.s.Watch(func(c backends.Change) { delivered <- c })
	el := uniqueName("ws-close-")
	rec := f.create(t, el)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: f.get(t, el)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := backendtest.Release(f.ctx, f.pss, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: backends.Record{Election: el, Token: 99}}) // refused: would answer at once
	probe, probeCh := watchOn(t, f.s)
	probe.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 3, Known: backends.Record{Election: el, Token: 99}})
	if c := nextChange(t, probeCh); c.Tag != 3 {
		t.Fatalf("probe: %+v", c)
	}
	select {
	case c := <-delivered:
		t.Fatalf("Change %+v after Close", c)
	default:
	}
	f.s.close()
	if got := len(*f.s.sets.Load()); got != 0 {
		t.Fatalf("%d sets open after Store.Close", got)
	}
}

// TestWatchSetStoreClosed: a request on a closed Store is not answered
// with a result; the set's calls do not block.
func TestWatchSetStoreClosed(t *testing.T) {
	s := newUnreachable(t, Options{})
	w, ch := watchOn(t, s)
	s.close()
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: backends.Record{Election: "a"}})
	select {
	case c := <-ch:
		if !errors.Is(c.Err, backends.ErrUnavailable) {
			t.Fatalf("Change %+v on a closed Store, want none or ErrUnavailable", c)
		}
	default:
	}
}

// hookWatching returns a channel of the elections whose watches are set
// from now until t ends.
func hookWatching(t testing.TB) <-chan string {
	ch := make(chan string, 1<<14)
	setHook(t, &testHookWatching, func(el string) { ch <- el })
	return ch
}

// awaitAny waits until a watch is set, failing t after 20s.
func awaitAny(t testing.TB, ch <-chan string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("no watch was set within 20s")
	}
}

// awaitWatching waits until el's watch is set, failing t after 20s.
func awaitWatching(t *testing.T, ch <-chan string, el string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case got := <-ch:
			if got == el {
				return
			}
		case <-deadline:
			t.Fatalf("the watch of %q was not set within 20s", el)
		}
	}
}

// readers names the connection the Store reads on: "session", "read", or
// "none".
func (s *store) readers() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.sessionReader(nil) != nil:
		return "session"
	case s.read != nil:
		return "read"
	}
	return "none"
}

// TestWatchSetRidesAReconnect: when the connection a request watches on
// drops and its session goes on, the request is read again elsewhere and
// still answered by the next change, without an error.
func TestWatchSetRidesAReconnect(t *testing.T) {
	f := newWatchFixture(t)
	r := startRelay(t, f.servers[0])
	s := newStore(t, []string{r.addr()}, Options{TickTime: f.tick})
	ss := retiringRead(t, s, f.tick)
	w, ch := watchOn(t, s)
	el := uniqueName("ws-reconnect-")
	rec := f.create(t, el)
	watching := hookWatching(t)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: f.get(t, el)})
	awaitWatching(t, watching, el)
	r.freeze()
	short, cancel := context.WithTimeout(f.ctx, ss.TTL()/6)
	defer cancel()
	if err := ss.KeepAlive(short); !errors.Is(err, backends.ErrCanceled) {
		t.Fatalf("KeepAlive over a silent connection: %v, want ErrCanceled at its deadline", err)
	}
	awaitWatching(t, watching, el) // read again, on a new connection
	if err := backendtest.Release(f.ctx, f.pss, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	if c := nextChange(t, ch); c.Tag != 1 || c.Err != nil || c.Record.Exists() {
		t.Fatalf("after the reconnect and the delete: %+v, want tag 1 absent", c)
	}
	for err := ss.KeepAlive(f.ctx); err != nil; err = ss.KeepAlive(f.ctx) {
		if !errors.Is(err, backends.ErrUnavailable) {
			t.Fatalf("KeepAlive while go-zookeeper reconnects: %v, want success or ErrUnavailable", err)
		}
	}
}

// TestWatchSetConcurrentUse: requests, stops and changes from many
// goroutines at once, and answers that ask again from deliver, end with
// every election answered with its created node (run with -race).
func TestWatchSetConcurrentUse(t *testing.T) {
	f := newWatchFixture(t)
	const n = 40
	els := make([]string, n)
	for i := range els {
		els[i] = uniqueName(fmt.Sprintf("ws-conc-%d-", i))
	}
	var mu sync.Mutex
	created := make(map[string]bool)
	var set backends.WatchSet
	ch := make(chan backends.Change, 4*n)
	set = f.s.Watch(func(c backends.Change) {
		if !c.Record.Exists() { // an answer before the create: ask again
			set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: c.Tag, Known: c.Record})
			return
		}
		ch <- c
	})
	t.Cleanup(func() { _ = set.Close() })
	var wg sync.WaitGroup
	for i, el := range els {
		wg.Go(func() {
			set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: backends.Record{Election: el}})
			set.Stop(el, backends.WatchKey)
			set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: backends.Record{Election: el}})
			if _, err := f.pss.Create(f.ctx, el, []byte("peer")); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			created[el] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	seen := make(map[string]bool)
	for range n {
		c := nextChange(t, ch)
		if c.Err != nil || seen[c.Election] || !created[c.Election] || c.Election != els[c.Tag] {
			t.Fatalf("answer %+v: want one per election, with its node", c)
		}
		seen[c.Election] = true
	}
}

func TestWatchNilDeliver(t *testing.T) {
	s := newUnreachable(t, Options{})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "deliver is nil") {
			t.Fatalf("Watch(nil) recovered %v, want a panic naming deliver", r)
		}
	}()
	s.Watch(nil)
}
