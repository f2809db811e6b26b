package zookeeper

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// TestMarkedDeleteEntryAheadGoes: if the entry ahead of the target's
// leaves between DeleteMarked's listing of the queue and its multi (the
// window testHookHeld opens), the multi's nudge finds no node and
// changes nothing; DeleteMarked lists again, finds the target at the
// head, and releases the key with the marker, in a second multi.
func TestMarkedDeleteEntryAheadGoes(t *testing.T) {
	s, ctx := markStore(t, "/leasehold-markahead-")
	el := "mark/ahead"
	l := newMarkLine(t, s, el)
	leader, target, held, first, mine := l.leader, l.target, l.held, l.first, l.mine
	multis := 0
	testHookHeld = func() {
		if multis++; multis == 1 {
			if err := s.Dequeue(ctx, first); err != nil {
				t.Errorf("Dequeue in the window: %v", err)
			}
		}
	}
	t.Cleanup(func() { testHookHeld = func() {} })
	if _, err := leader.End(ctx, backends.End{Election: el, Token: held.Token, To: &backends.Target{Session: target.ID(), Entry: mine.Token}}); err != nil {
		t.Fatalf("DeleteMarked: %v", err)
	}
	if multis != 2 {
		t.Errorf("%d multis, want 2: the first fails on the nudge, the second releases", multis)
	}
	if got, err := s.Get(ctx, el); err != nil || got.Exists() || got.To != target.ID() {
		t.Fatalf("Get after DeleteMarked = %+v, %v; want absent with To %s", got, err, target.ID())
	}
}

// TestMarkedDeleteReplaced: a DeleteMarked at the token of a node that
// was deleted and created again since (by another session) changes
// nothing and fails with ErrNotFound, after reading the node: the
// session's own versions of it no longer hold.
func TestMarkedDeleteReplaced(t *testing.T) {
	s, raw, tick := epochStore(t, "/leasehold-markreplaced-")
	var reads int
	testHookRead = func() { reads++ }
	t.Cleanup(func() { testHookRead = func() {} })
	ctx := testCtx(t)
	a, b, c := newTestSession(t, s, tick), newTestSession(t, s, tick), newTestSession(t, s, tick)
	el := "mark/replaced"
	if _, err := c.Join(ctx, el, []byte("c")); err != nil {
		t.Fatal(err)
	}
	old, err := a.Create(ctx, el, []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Delete(s.leaderPath(el), -1); err != nil {
		t.Fatal(err)
	}
	second, err := b.Create(ctx, el, []byte("b"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.End(ctx, backends.End{Election: el, Token: old.Token, To: &backends.Target{Session: c.ID()}})
	if !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("DeleteMarked of a replaced incarnation: %v, want ErrNotFound", err)
	}
	if reads != 1 {
		t.Errorf("%d reads of the node, want 1 (after the known versions failed)", reads)
	}
	if got, err := s.Get(ctx, el); err != nil || got.Token != second.Token || got.To != "" {
		t.Fatalf("Get = %+v, %v; want the successor's node %d, unmarked", got, err, second.Token)
	}
	reads = 0
	if _, err := b.End(ctx, backends.End{Election: el, Token: second.Token, To: &backends.Target{Session: c.ID()}}); err != nil {
		t.Fatalf("DeleteMarked by the holder: %v", err)
	}
	if reads != 0 {
		t.Errorf("%d reads of the node by a DeleteMarked of the session's own create, want 0", reads)
	}
}

// TestMarkedDeleteAheadHint: a DeleteMarked given the entry ahead
// (Mark.Ahead) nudges that entry without listing the queue, so a hint
// that names an older entry than the one just ahead nudges the older
// one; a hint that names an entry gone since fails the first multi, and
// the second lists the queue and nudges the entry just ahead.
func TestMarkedDeleteAheadHint(t *testing.T) {
	s, raw, tick := epochStore(t, "/leasehold-markhint-")
	ctx := testCtx(t)
	el := "mark/hint"
	sessions := make([]backends.Session, 4)
	for i := range sessions {
		sessions[i] = newTestSession(t, s, tick)
	}
	entries := make([]backends.Record, 3) // older, ahead, the target's
	for i := range entries {
		e, err := sessions[i+1].Enqueue(ctx, el)
		if err != nil {
			t.Fatal(err)
		}
		entries[i] = e
	}
	version := func(e backends.Record) int32 {
		t.Helper()
		p, err := s.entryPath(e)
		if err != nil {
			t.Fatal(err)
		}
		_, st, err := raw.Get(p)
		if err != nil {
			t.Fatalf("Get %s: %v", p, err)
		}
		return st.Version
	}
	release := func(hint backends.Record) (multis int) {
		t.Helper()
		held, err := sessions[0].Create(ctx, el, []byte("a"))
		if err != nil {
			t.Fatal(err)
		}
		testHookHeld = func() { multis++ }
		defer func() { testHookHeld = func() {} }()
		to := &backends.Target{Session: sessions[3].ID(), Entry: entries[2].Token, Ahead: hint}
		if _, err := sessions[0].End(ctx, backends.End{Election: el, Token: held.Token, To: to}); err != nil {
			t.Fatalf("DeleteMarked with Ahead %+v: %v", hint, err)
		}
		return multis
	}
	if n := release(entries[0]); n != 1 || version(entries[0]) != 1 || version(entries[1]) != 0 {
		t.Fatalf("hinted at the older entry: %d multis, versions %d and %d; want 1 multi, the older entry nudged and not the one ahead",
			n, version(entries[0]), version(entries[1]))
	}
	if err := s.Dequeue(ctx, entries[0]); err != nil {
		t.Fatal(err)
	}
	if n := release(entries[0]); n != 2 || version(entries[1]) != 1 {
		t.Fatalf("hinted at a gone entry: %d multis, the entry ahead at version %d; want 2 multis and it nudged", n, version(entries[1]))
	}
}

// TestWaitGoneAfterMarkedDelete: a WatchSet's WaitGone on an entry that
// a marked delete nudged before the watch was set (the target listed the
// queue before the delete and watched after it) is answered with the
// absent key and the marker's To, as if the nudge had come after it; the
// target would otherwise wait behind the entry, unwoken. As a nudge, the
// marker is answered once per set: the same set's next WaitGone on the
// entry waits, another set's is answered. Once the target's create has
// cleared the marker, a WaitGone on the entry, nudged once, waits.
func TestWaitGoneAfterMarkedDelete(t *testing.T) {
	s, ctx := markStore(t, "/leasehold-markbefore-")
	el := "mark/before"
	l := newMarkLine(t, s, el)
	leader, target, held, first, mine := l.leader, l.target, l.held, l.first, l.mine
	to := &backends.Target{Session: target.ID(), Entry: mine.Token, Ahead: first}
	if _, err := leader.End(ctx, backends.End{Election: el, Token: held.Token, To: to}); err != nil {
		t.Fatalf("DeleteMarked: %v", err)
	}
	watching := make(chan string, 8)
	testHookWatching = func(el string) { watching <- el }
	t.Cleanup(func() { testHookWatching = func(string) {} })
	answered := func(what string) {
		t.Helper()
		w, ch := watchOn(t, s)
		w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: first})
		if c := nextChange(t, ch); c.Tag != 1 || c.Err != nil || c.Record.Exists() || c.Record.To != target.ID() {
			t.Fatalf("%s: %+v, want tag 1, the absent key and To %s", what, c, target.ID())
		}
		if what != "" {
			return
		}
		w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 2, Known: first})
		waits(t, ch, watching, "the same set's second WaitGone on the nudged entry")
	}
	answered("")
	answered("another set's WaitGone on the nudged entry")
	if _, err := target.Create(ctx, el, []byte("t")); err != nil {
		t.Fatal(err)
	}
	w, ch := watchOn(t, s)
	w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: first})
	waits(t, ch, watching, "WaitGone on a nudged entry with no marker")
}

// waits fails t unless the set whose answers come on ch sets a watch
// (watching) and answers nothing.
func waits(t *testing.T, ch <-chan backends.Change, watching <-chan string, what string) {
	t.Helper()
	select {
	case <-watching:
	case c := <-ch:
		t.Fatalf("%s: %+v, want it to wait", what, c)
	case <-time.After(20 * time.Second):
		t.Fatalf("%s set no watch within 20s", what)
	}
	select {
	case c := <-ch:
		t.Fatalf("%s: %+v, want it to wait", what, c)
	default:
	}
}

// markStore returns a Store under a prefix of its own and a context for
// the test.
func markStore(t *testing.T, prefix string) (*store, context.Context) {
	s, _, _ := epochStore(t, prefix)
	return s, testCtx(t)
}

// markLine is an election held by leader, with two entries in line:
// first, ahead's, then mine, target's.
type markLine struct {
	leader, target backends.Session
	held           backends.Record
	first, mine    backends.Record
}

// newMarkLine holds el on s and puts two sessions in line behind it.
func newMarkLine(t *testing.T, s *store, el string) markLine {
	t.Helper()
	ctx, tick := testCtx(t), s.opts.TickTime
	l := markLine{leader: newTestSession(t, s, tick), target: newTestSession(t, s, tick)}
	ahead := newTestSession(t, s, tick)
	var err error
	if l.held, err = l.leader.Create(ctx, el, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if l.first, err = ahead.Enqueue(ctx, el); err != nil {
		t.Fatal(err)
	}
	if l.mine, err = l.target.Enqueue(ctx, el); err != nil {
		t.Fatal(err)
	}
	return l
}
