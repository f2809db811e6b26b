package backendtest

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// markSetup returns a store, a leader session holding a fresh election's
// key, and a second session, the handover's target, with a record in the
// election's roster: a store that cannot tell a
// session's life otherwise (ZooKeeper) takes that record for the session
// of a target not in line.
func markSetup(t *testing.T, h Harness) (backends.Driver, backends.Session, backends.Session, backends.Record) {
	s, _ := newDriver(t, h)
	a, b := newSession(t, s), newSession(t, s)
	el := Election(t)
	mustJoin(t, b, el, "target")
	return s, a, b, mustCreate(t, a, el, "alice")
}

// mustDeleteMarked releases held's key from a, naming b with entry.
func mustDeleteMarked(t *testing.T, s backends.Driver, a, b backends.Session, held backends.Record, entry uint64) {
	t.Helper()
	_, err := a.End(Context(t, 10*time.Second), backends.End{Election: held.Election, Token: held.Token, To: &backends.Target{Session: b.ID(), Entry: entry}})
	if err != nil {
		t.Fatalf("marked End(%q, %d, to %s): %v", held.Election, held.Token, b.ID(), err)
	}
}

// wantMarked fails t unless rec is election el's absent key naming to.
func wantMarked(t *testing.T, rec backends.Record, el, to, what string) {
	t.Helper()
	if rec.Exists() || rec.To != to || rec.Election != el {
		t.Fatalf("%s = %+v, want %q absent with To %q", what, rec, el, to)
	}
}

// testMarkGetSees: a Get after a marked delete reads the key absent with
// the marker; the target's Create takes the key and clears the marker, so
// that a plain delete after it leaves none.
func testMarkGetSees(t *testing.T, h Harness) {
	s, a, b, held := markSetup(t, h)
	el := held.Election
	mustDeleteMarked(t, s, a, b, held, 0)
	wantMarked(t, mustGet(t, s, el), el, b.ID(), "Get after marked End")
	mine := mustCreate(t, b, el, "bob")
	if mine.Token <= held.Token || mine.To != "" {
		t.Fatalf("target's Create = %+v, want a token above %d and no To", mine, held.Token)
	}
	if err := Release(Context(t, 10*time.Second), b, el, mine.Token); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	wantMarked(t, mustGet(t, s, el), el, "", "Get after the target's Create and a plain Delete")
}

// testMarkWaitSees: a WatchKey request on the held key reports the
// deletion with the marker.
func testMarkWaitSees(t *testing.T, h Harness) {
	s, a, b, held := markSetup(t, h)
	el := held.Election
	set, ch := watchSet(t, s)
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: held})
	noChange(t, ch, "before the delete")
	mustDeleteMarked(t, s, a, b, held, 0)
	c := awaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 1)
	wantMarked(t, c.Record, el, b.ID(), "WatchSet's answer")
}

// testMarkNotFound: a marked delete at a stale token changes nothing.
func testMarkNotFound(t *testing.T, h Harness) {
	s, a, b, held := markSetup(t, h)
	el := held.Election
	_, err := a.End(Context(t, 10*time.Second), backends.End{Election: el, Token: held.Token + 1000, To: &backends.Target{Session: b.ID()}})
	if !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("marked End at a stale token: %v, want ErrNotFound", err)
	}
	if got := mustGet(t, s, el); got.Token != held.Token || got.To != "" {
		t.Fatalf("Get after a refused marked End = %+v, want %+v", got, held)
	}
}

// testMarkNoCandidate: a marked delete naming a session that has ended
// fails with ErrNoCandidate and changes nothing.
func testMarkNoCandidate(t *testing.T, h Harness) {
	s, a, b, held := markSetup(t, h)
	el := held.Election
	if err := b.Close(Context(t, 10*time.Second)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, err := a.End(Context(t, 10*time.Second), backends.End{Election: el, Token: held.Token, To: &backends.Target{Session: b.ID()}})
	if !errors.Is(err, backends.ErrNoCandidate) {
		t.Fatalf("marked End to an ended session: %v, want ErrNoCandidate", err)
	}
	if got := mustGet(t, s, el); got.Token != held.Token {
		t.Fatalf("Get after a refused marked End = %+v, want %+v", got, held)
	}
}

// testMarkEndsWithTarget: the marker goes when its target's session ends.
func testMarkEndsWithTarget(t *testing.T, h Harness) {
	s, a, b, held := markSetup(t, h)
	el := held.Election
	mustDeleteMarked(t, s, a, b, held, 0)
	if err := b.Close(Context(t, 10*time.Second)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	wantMarked(t, mustGet(t, s, el), el, "", "Get after the target's session ended")
}

// testMarkWakesInLine: on a store that marks, a WatchSet's WatchEntry
// request on the entry ahead of the target's is answered by a marked
// delete naming the target's entry, with the absent key and its To, once;
// one on the target's own entry is not.
func testMarkWakesInLine(t *testing.T, h Harness) {
	l := newWakeLine(t, h, "a marked delete")
	s, el := l.s, l.held.Election
	set, ch := watchSet(t, s)
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: mustAhead(t, s, el, l.mine.Token)})
	behind, behindCh := watchSet(t, s)
	behind.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 2, Known: l.mine})
	noChange(t, ch, "before the marked delete")
	mustDeleteMarked(t, s, l.leader, l.target, l.held, l.mine.Token)
	c := awaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 1)
	wantMarked(t, c.Record, el, l.target.ID(), "WatchEntry answer")
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 3, Known: mustAhead(t, s, el, l.mine.Token)})
	noChange(t, ch, "to the same request made after the answer")
	noChange(t, behindCh, "to a WatchEntry request on the target's own entry")
}

// testMarkLeaves: a marked delete with Leave deletes
// the leader's record with the key, and the target's stays; a leader with
// no record releases its key marked all the same.
func testMarkLeaves(t *testing.T, h Harness) {
	s, a, b, held := markSetup(t, h)
	el := held.Election
	target, _ := mustList(t, s, el)
	mustJoin(t, a, el, "leader's record")
	ctx := Context(t, 10*time.Second)
	if _, err := a.End(ctx, backends.End{Election: el, Token: held.Token, Leave: true, To: &backends.Target{Session: b.ID()}}); err != nil {
		t.Fatalf("marked End with leave: %v", err)
	}
	wantMarked(t, mustGet(t, s, el), el, b.ID(), "Get after marked End with leave")
	recs, _ := mustList(t, s, el)
	wantRoster(t, recs, el, target...)
	mine := mustCreate(t, b, el, "bob")
	c := newSession(t, s)
	mustJoin(t, c, el, "carol's record")
	if _, err := b.End(ctx, backends.End{Election: el, Token: mine.Token, Leave: true, To: &backends.Target{Session: c.ID()}}); err != nil {
		t.Fatalf("marked End with leave, the leader's record joined before the key was created: %v", err)
	}
	wantMarked(t, mustGet(t, s, el), el, c.ID(), "Get after a second marked End with leave")
	d := newSession(t, s)
	again := mustCreate(t, c, el, "carol")
	mustJoin(t, d, el, "dave's record")
	if err := c.Leave(ctx, el); err != nil {
		t.Fatalf("Leave: %v", err)
	}
	if _, err := c.End(ctx, backends.End{Election: el, Token: again.Token, Leave: true, To: &backends.Target{Session: d.ID()}}); err != nil {
		t.Fatalf("marked End with leave, after the leader's record was deleted: %v", err)
	}
	wantMarked(t, mustGet(t, s, el), el, d.ID(), "Get after marked End with leave and no record")
}
