package backendtest

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// runHandoverTests runs the contract of an End with a target, a pass,
// where the store's Capabilities declare Passes. A store that does not
// pass hands nothing over, and the tests are skipped, saying so.
func runHandoverTests(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	l := s.Capabilities()
	switch {
	case l.CommittedWaits && !l.Passes:
		t.Fatalf("%s store's Capabilities declare CommittedWaits without Passes", s.Capabilities().Name)
	case !l.Passes:
		t.Skipf("%s store's Capabilities do not declare Passes: it hands nothing over", s.Capabilities().Name)
	}
	tests := map[string]func(*testing.T, Harness){
		"ToCandidate":   testPassToCandidate,
		"NoCandidate":   testPassNoCandidate,
		"NotFound":      testPassNotFound,
		"WaitSees":      testPassWaitSees,
		"AfterProclaim": testPassAfterProclaim,
		"WakesInLine":   testPassWakesInLine,
		"NoEntryWakes":  testPassNoEntryWakes,
		"Leaves":        testPassLeaves,
		"EntryGone":     testPassEntryGone,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, h)
		})
	}
}

// passSetup returns a store, a leader session holding a fresh election's
// key, and a second session that has joined its roster.
func passSetup(t *testing.T, h Harness) (backends.Driver, backends.Session, backends.Session, backends.Record) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a, b := newSession(t, s), newSession(t, s)
	held := mustCreate(t, a, el, "alice")
	mustJoin(t, b, el, "bob's record")
	return s, a, b, held
}

// mustPass passes held's key from a to b, which waits on the key, with
// value and checks the answer: b owns it, with a greater token.
func mustpass(t *testing.T, a, b backends.Session, held backends.Record, value string) backends.Record {
	t.Helper()
	return mustPassInLine(t, a, b, 0, held, value)
}

// mustPassInLine is mustPass to b waiting in line with entry (0: on the
// key).
func mustPassInLine(t *testing.T, a, b backends.Session, entry uint64, held backends.Record, value string) backends.Record {
	t.Helper()
	rec, err := a.End(Context(t, 10*time.Second), backends.End{Election: held.Election, Token: held.Token, To: &backends.Target{Session: b.ID(), Entry: entry, Value: []byte(value)}})
	if err != nil {
		t.Fatalf("pass(%q, %d, to %s): %v", held.Election, held.Token, b.ID(), err)
	}
	if rec.Owner != b.ID() || rec.Token <= held.Token || string(rec.Value) != value || rec.Election != held.Election {
		t.Fatalf("pass(%q) = %+v, want owner %s, a token above %d, value %q", held.Election, rec, b.ID(), held.Token, value)
	}
	return rec
}

// testPassToCandidate: the key passes to the candidate with a greater
// token; the old holder's release finds nothing; the new holder's Create
// returns the passed record; the key goes with the new holder's session,
// not the old one's.
func testPassToCandidate(t *testing.T, h Harness) {
	s, a, b, held := passSetup(t, h)
	el := held.Election
	passed := mustpass(t, a, b, held, "bob")
	ctx := Context(t, 10*time.Second)
	if got := mustGet(t, s, el); got.Differs(passed) || got.Owner != b.ID() {
		t.Fatalf("Get after a pass = %+v, want %+v", got, passed)
	}
	if err := Release(ctx, a, el, held.Token); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("the old holder's Delete at its token after a pass: %v, want ErrNotFound", err)
	}
	if got, err := b.Create(ctx, el, []byte("bob again")); err != nil || got.Token != passed.Token || got.Owner != b.ID() {
		t.Fatalf("the new holder's Create after a pass = %+v, %v, want its passed record at token %d", got, err, passed.Token)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, el); got.Token != passed.Token {
		t.Fatalf("Get after the old holder's session closed = %+v: the passed key went with it", got)
	}
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after the new holder's session closed = %+v: the passed key outlived it", got)
	}
	c := newSession(t, s)
	if got := mustCreate(t, c, el, "carol"); got.Token <= passed.Token {
		t.Fatalf("Create after the passed key went: token %d, want above %d", got.Token, passed.Token)
	}
}

// testPassNoCandidate: a pass to a session without a roster record in
// the election (never joined, left, or closed) fails with ErrNoCandidate
// and changes nothing.
func testPassNoCandidate(t *testing.T, h Harness) {
	s, a, b, held := passSetup(t, h)
	el := held.Election
	c := newSession(t, s)
	ctx := Context(t, 10*time.Second)
	mustJoin(t, c, Election(t), "carol elsewhere")
	check := func(what, to string) {
		t.Helper()
		if _, err := a.End(ctx, backends.End{Election: el, Token: held.Token, To: &backends.Target{Session: to, Value: []byte("x")}}); !errors.Is(err, backends.ErrNoCandidate) {
			t.Fatalf("pass %s: %v, want ErrNoCandidate", what, err)
		}
		if got := mustGet(t, s, el); got.Differs(held) || got.Owner != a.ID() {
			t.Fatalf("Get after pass %s = %+v, want the key unchanged %+v", what, got, held)
		}
	}
	check("to a candidate of another election", c.ID())
	check("to an unknown session", "no-such-session")
	check("to the holder itself", a.ID())
	if err := b.Leave(ctx, el); err != nil {
		t.Fatal(err)
	}
	check("to a candidate that left", b.ID())
	d := newSession(t, s)
	mustJoin(t, d, el, "dave")
	if err := d.Close(ctx); err != nil {
		t.Fatal(err)
	}
	check("to a candidate whose session closed", d.ID())
}

// testPassNotFound: a pass with another token, by another session, or on
// an absent key fails with ErrNotFound and changes nothing, whether its
// target stands in the election or not: ErrNotFound comes first.
func testPassNotFound(t *testing.T, h Harness) {
	s, a, b, held := passSetup(t, h)
	el := held.Election
	ctx := Context(t, 10*time.Second)
	c := newSession(t, s)
	mustJoin(t, c, el, "carol's record")
	gone := mustEnqueue(t, c, el)
	if err := s.Dequeue(ctx, gone); err != nil {
		t.Fatalf("Dequeue: %v", err)
	}
	for _, tc := range []struct {
		what  string
		ss    backends.Session
		token uint64
	}{
		{"with a higher token", a, held.Token + 1},
		{"with a lower token", a, held.Token - 1},
		{"with token 0", a, 0},
		{"by another session", b, held.Token},
	} {
		for _, entry := range []uint64{0, gone.Token} {
			to := &backends.Target{Session: c.ID(), Entry: entry, Value: []byte("x")}
			if _, err := tc.ss.End(ctx, backends.End{Election: el, Token: tc.token, To: to}); !errors.Is(err, backends.ErrNotFound) {
				t.Fatalf("pass %s to entry %d: %v, want ErrNotFound", tc.what, entry, err)
			}
		}
	}
	if got := mustGet(t, s, el); got.Differs(held) || got.Owner != a.ID() {
		t.Fatalf("Get after refused Passes = %+v, want the key unchanged %+v", got, held)
	}
	if err := Release(ctx, a, el, held.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := a.End(ctx, backends.End{Election: el, Token: held.Token, To: &backends.Target{Session: b.ID(), Value: []byte("x")}}); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("pass on an absent key: %v, want ErrNotFound", err)
	}
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after a pass on an absent key = %+v: it created the key", got)
	}
}

// testPassWaitSees: a Wait from the record before the pass returns the
// passed key, both when waiting across it and when called after it.
func testPassWaitSees(t *testing.T, h Harness) {
	s, a, b, held := passSetup(t, h)
	before := mustGet(t, s, held.Election)
	ch := startWait(t, s, before)
	passed := mustpass(t, a, b, held, "bob")
	for i, ch := range []<-chan waitResult{ch, startWait(t, s, before)} {
		if got := await(t, ch); got.Token != passed.Token || got.Owner != b.ID() {
			t.Fatalf("Wait %d from before a pass = %+v, want the passed key %+v", i, got, passed)
		}
	}
}

// testPassAfterProclaim: a proclaimed key passes too, and its token still
// rises; guarded writes then take the new token only.
func testPassAfterProclaim(t *testing.T, h Harness) {
	s, a, b, held := passSetup(t, h)
	mustProclaim(t, a, held, "alice v2")
	passed := mustpass(t, a, b, held, "bob")
	ctx := Context(t, 10*time.Second)
	if err := s.GuardedPut(ctx, backends.Guarded{Election: held.Election, Token: held.Token, Key: "test/k", Value: []byte("old")}); !errors.Is(err, backends.ErrNotLeader) {
		t.Fatalf("GuardedPut with the old token after a pass: %v, want ErrNotLeader", err)
	}
	if err := s.GuardedPut(ctx, backends.Guarded{Election: held.Election, Token: passed.Token, Key: "test/k", Value: []byte("new")}); err != nil {
		t.Fatalf("GuardedPut with the passed token: %v", err)
	}
}

// testPassLeaves: a pass with Leave deletes the old
// holder's record with it, and the target's stays; with no record to
// delete it passes all the same.
func testPassLeaves(t *testing.T, h Harness) {
	s, a, b, held := passSetup(t, h)
	el := held.Election
	mustJoin(t, a, el, "alice's record")
	before, _ := mustList(t, s, el)
	ctx := Context(t, 10*time.Second)
	passed, err := a.End(ctx, backends.End{Election: el, Token: held.Token, Leave: true, To: &backends.Target{Session: b.ID(), Value: []byte("bob")}})
	if err != nil || passed.Owner != b.ID() {
		t.Fatalf("pass with leave = %+v, %v; want the key passed to %s", passed, err, b.ID())
	}
	recs, _ := mustList(t, s, el)
	wantRoster(t, recs, el, before[0]) // b's, joined first
	back, err := b.End(ctx, backends.End{Election: el, Token: passed.Token, Leave: true, To: &backends.Target{Session: a.ID(), Value: []byte("alice")}})
	if !errors.Is(err, backends.ErrNoCandidate) {
		t.Fatalf("pass back to a that left = %+v, %v; want ErrNoCandidate", back, err)
	}
	mustJoin(t, a, el, "alice again")
	if _, err := b.End(ctx, backends.End{Election: el, Token: passed.Token, To: &backends.Target{Session: a.ID(), Value: []byte("alice")}}); err != nil {
		t.Fatalf("pass back to a that joined again: %v", err)
	}
	c := newSession(t, s)
	mustJoin(t, c, el, "carol's record")
	if err := a.Leave(ctx, el); err != nil {
		t.Fatalf("Leave: %v", err)
	}
	if _, err := a.End(ctx, backends.End{Election: el, Token: mustGet(t, s, el).Token, Leave: true, To: &backends.Target{Session: c.ID(), Value: []byte("carol")}}); err != nil {
		t.Fatalf("pass with leave from a holder with no record: %v", err)
	}
}

// testPassEntryGone: a pass to a target in line checks, in its write, that
// the target still holds that queue entry: once the entry is gone (the
// target dequeued, or enqueued again with another), the pass fails with
// ErrNoCandidate and changes nothing, though the target's record stays.
func testPassEntryGone(t *testing.T, h Harness) {
	s, a, b, held := passSetup(t, h)
	el := held.Election
	ctx := Context(t, 10*time.Second)
	entry := mustEnqueue(t, b, el)
	if err := s.Dequeue(ctx, entry); err != nil {
		t.Fatalf("Dequeue: %v", err)
	}
	to := &backends.Target{Session: b.ID(), Entry: entry.Token, Value: []byte("bob")}
	if _, err := a.End(ctx, backends.End{Election: el, Token: held.Token, To: to}); !errors.Is(err, backends.ErrNoCandidate) {
		t.Fatalf("pass to a target whose entry is gone: %v, want ErrNoCandidate", err)
	}
	if got := mustGet(t, s, el); got.Differs(held) || got.Owner != a.ID() {
		t.Fatalf("Get after a refused pass = %+v, want the key unchanged %+v", got, held)
	}
	again := mustEnqueue(t, b, el)
	to.Entry = again.Token
	if _, err := a.End(ctx, backends.End{Election: el, Token: held.Token, To: to}); err != nil {
		t.Fatalf("pass to a target with its new entry: %v", err)
	}
}
