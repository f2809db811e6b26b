package backendtest

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// runQueueTests runs the contract of the queue (Session.Enqueue; Driver.Ahead, WatchEntry requests,
// Dequeue).
func runQueueTests(t *testing.T, h Harness) {
	tests := map[string]func(*testing.T, Harness){
		"Order":          testQueueOrder,
		"Idempotent":     testQueueIdempotent,
		"WaitGone":       testQueueWaitGone,
		"SessionEnd":     testQueueSessionEnd,
		"Apart":          testQueueApart,
		"ExpiredSession": testQueueExpiredSession,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, h)
		})
	}
}

func mustEnqueue(t *testing.T, ss backends.Session, election string) backends.Record {
	t.Helper()
	rec, err := ss.Enqueue(Context(t, 10*time.Second), election)
	if err != nil {
		t.Fatalf("Enqueue(%q): %v", election, err)
	}
	if rec.Token == 0 || rec.Owner != ss.ID() || rec.Election != election {
		t.Fatalf("Enqueue(%q) = %+v: want a token, owner %q and the election", election, rec, ss.ID())
	}
	return rec
}

func mustAhead(t *testing.T, q backends.Driver, election string, token uint64) backends.Record {
	t.Helper()
	rec, err := q.Ahead(Context(t, 10*time.Second), election, token)
	if err != nil {
		t.Fatalf("Ahead(%q, %d): %v", election, token, err)
	}
	return rec
}

// testQueueOrder: entries take increasing tokens in the order enqueued;
// each one's Ahead is the one before; the first has none; a dequeued
// entry is skipped.
func testQueueOrder(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	var recs []backends.Record
	for range 4 {
		recs = append(recs, mustEnqueue(t, newSession(t, s), el))
	}
	for i, r := range recs {
		got := mustAhead(t, s, el, r.Token)
		switch {
		case i == 0 && got.Exists():
			t.Fatalf("Ahead of the first entry = %+v, want none", got)
		case i > 0 && (got.Token != recs[i-1].Token || got.Owner != recs[i-1].Owner):
			t.Fatalf("Ahead of entry %d (token %d) = %+v, want entry %d %+v", i, r.Token, got, i-1, recs[i-1])
		}
	}
	if err := s.Dequeue(Context(t, 10*time.Second), recs[1]); err != nil {
		t.Fatal(err)
	}
	if got := mustAhead(t, s, el, recs[2].Token); got.Token != recs[0].Token {
		t.Fatalf("after dequeuing entry 1, Ahead of entry 2 = %+v, want entry 0 %+v", got, recs[0])
	}
	if err := s.Dequeue(Context(t, 10*time.Second), recs[1]); err != nil {
		t.Fatalf("Dequeue of a gone entry: %v, want nil", err)
	}
}

// testQueueIdempotent: a second Enqueue of the same session returns the
// same entry.
func testQueueIdempotent(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	ss := newSession(t, s)
	a := mustEnqueue(t, ss, el)
	b := mustEnqueue(t, ss, el)
	if a.Token != b.Token {
		t.Fatalf("second Enqueue = token %d, want %d (the same entry)", b.Token, a.Token)
	}
	later := mustEnqueue(t, newSession(t, s), el)
	if got := mustAhead(t, s, el, later.Token); got.Token != a.Token {
		t.Fatalf("Ahead of a later entry = %+v, want the one entry %+v", got, a)
	}
}

// testQueueWaitGone: WaitGone blocks while the entry exists and returns
// within a round trip of its Dequeue; on a gone entry it returns at once.
func testQueueWaitGone(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a := mustEnqueue(t, newSession(t, s), el)
	ch := startWaitGone(t, s, a)
	select {
	case err := <-ch:
		t.Fatalf("WaitGone returned %v with the entry in place", err)
	case <-time.After(200 * time.Millisecond): // nothing to wait for: a return here is the failure
	}
	if err := s.Dequeue(Context(t, 10*time.Second), a); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, ch)
	awaitGone(t, startWaitGone(t, s, a))
}

// testQueueSessionEnd: closing a session removes its entry, and the entry
// behind it sees it go.
func testQueueSessionEnd(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	first := newSession(t, s)
	a := mustEnqueue(t, first, el)
	b := mustEnqueue(t, newSession(t, s), el)
	ch := startWaitGone(t, s, mustAhead(t, s, el, b.Token))
	if err := first.Close(Context(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, ch)
	if got := mustAhead(t, s, el, b.Token); got.Exists() {
		t.Fatalf("Ahead after the first session closed = %+v, want none (entry %+v gone)", got, a)
	}
}

// testQueueApart: queue entries are not leader keys, and leader keys are
// not entries.
func testQueueApart(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	ss := newSession(t, s)
	e := mustEnqueue(t, ss, el)
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after Enqueue = %+v, want no leader key", got)
	}
	mustCreate(t, newSession(t, s), el, "holder")
	if got := mustAhead(t, s, el, e.Token); got.Exists() {
		t.Fatalf("Ahead with only a leader key ahead = %+v, want none", got)
	}
}

// testQueueExpiredSession: Enqueue on an ended session fails with
// ErrSessionExpired and leaves no entry.
func testQueueExpiredSession(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	ss := newSession(t, s)
	if err := ss.Close(Context(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.Enqueue(Context(t, 10*time.Second), el); !errors.Is(err, backends.ErrSessionExpired) {
		t.Fatalf("Enqueue on a closed session: %v, want ErrSessionExpired", err)
	}
	later := mustEnqueue(t, newSession(t, s), el)
	if got := mustAhead(t, s, el, later.Token); got.Exists() {
		t.Fatalf("Ahead = %+v: the closed session left an entry", got)
	}
}

// startWaitGone asks a WatchSet of its own to tell when entry is gone or
// nudged (a WatchEntry request), and returns the channel the answer's
// error arrives on. The set is closed when t ends.
func startWaitGone(t *testing.T, q backends.Driver, entry backends.Record) <-chan error {
	ch := make(chan error, 1)
	set := q.Watch(func(c backends.Change) { ch <- c.Err })
	t.Cleanup(func() { _ = set.Close() })
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: entry})
	return ch
}

func awaitGone(t *testing.T, ch <-chan error) {
	t.Helper()
	select {
	case err := <-ch:
		if err != nil {
			t.Fatalf("WatchEntry answer: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("WatchEntry request not answered within 20s of the entry's deletion")
	}
}
