package backendtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// nudged is a queue with two entries, a and b behind it, in election el,
// where a is to be nudged.
type nudged struct {
	s     backends.Driver
	el    string
	owner backends.Session // a's session
	a, b  backends.Record
}

// newNudged makes a nudged queue on sessions that outlive the test's
// quiet periods.
func newNudged(t *testing.T, h Harness) nudged {
	s, _ := newDriver(t, h)
	n := nudged{s: s, el: Election(t), owner: longSession(t, s)}
	n.a = mustEnqueue(t, n.owner, n.el)
	n.b = mustEnqueue(t, longSession(t, s), n.el)
	return n
}

func (n nudged) nudge(t *testing.T) {
	t.Helper()
	if err := n.s.Nudge(Context(t, 10*time.Second), n.a); err != nil {
		t.Fatalf("Nudge: %v", err)
	}
}

// ahead returns the entry ahead of b, which must still be a, with its
// Token and Owner, after checking that a's session's Enqueue finds a.
func (n nudged) ahead(t *testing.T, when string) backends.Record {
	t.Helper()
	if again := mustEnqueue(t, n.owner, n.el); again.Token != n.a.Token {
		t.Fatalf("Enqueue by its session %s = token %d, want the entry's %d", when, again.Token, n.a.Token)
	}
	got := mustAhead(t, n.s, n.el, n.b.Token)
	if got.Token != n.a.Token || got.Owner != n.a.Owner {
		t.Fatalf("Ahead %s = %+v, want the nudged entry %+v in its place", when, got, n.a)
	}
	return got
}

// testQueueNudge: a WaitGone on an entry returns after its Nudge; the
// entry keeps its Token, Owner and place, so a WaitGone on it from a fresh
// Ahead waits again, and it stays bound to its session, going when the
// session closes. A Nudge of a missing entry is nil.
func testQueueNudge(t *testing.T, h Harness) {
	n := newNudged(t, h)
	ch := startWaitGone(t, n.s, mustAhead(t, n.s, n.el, n.b.Token))
	select {
	case err := <-ch:
		t.Fatalf("WaitGone returned %v before the Nudge", err)
	case <-time.After(quiet): // nothing to wait for: a return here is the failure
	}
	n.nudge(t)
	awaitGone(t, ch)
	ch = startWaitGone(t, n.s, n.ahead(t, "after the Nudge"))
	select {
	case err := <-ch:
		t.Fatalf("WaitGone from a fresh Ahead after the Nudge returned %v, want it waiting", err)
	case <-time.After(quiet): // nothing to wait for: a return here is the failure
	}
	if err := n.owner.Close(Context(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, ch)
	if got := mustAhead(t, n.s, n.el, n.b.Token); got.Exists() {
		t.Fatalf("Ahead after the nudged entry's session closed = %+v, want none", got)
	}
	if err := n.s.Nudge(Context(t, 10*time.Second), n.a); err != nil {
		t.Fatalf("Nudge of a gone entry: %v, want nil", err)
	}
	if got := mustAhead(t, n.s, n.el, n.b.Token); got.Exists() {
		t.Fatalf("Ahead after a Nudge of a gone entry = %+v: the Nudge made an entry", got)
	}
}

// testSetNudge: a WatchSet's WaitGone on an entry is answered after its
// Nudge, with the entry; a new request from a fresh Ahead is not answered
// until the entry's session closes.
func testSetNudge(t *testing.T, h Harness) {
	n := newNudged(t, h)
	set, ch := watchSet(t, n.s)
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: mustAhead(t, n.s, n.el, n.b.Token)})
	noChange(t, ch, "before the Nudge")
	n.nudge(t)
	c := awaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, n.el, 1)
	if c.Record.Token != n.a.Token || c.Record.Owner != n.a.Owner {
		t.Fatalf("WaitGone answer = %+v, want the entry %+v", c.Record, n.a)
	}
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 2, Known: n.ahead(t, "after the Nudge")})
	noChange(t, ch, "to a request from after the Nudge")
	if err := n.owner.Close(Context(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	wantAnswer(t, awaitChange(t, ch, 20*time.Second), n.el, 2)
}
