package backendtest

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// runPassTests runs the contract of backends.Passer if the harness's
// stores implement it, and says so loudly if they do not.
func runPassTests(t *testing.T, h Harness) {
	s, _ := h.NewStore(t)
	if _, ok := s.(backends.Passer); !ok {
		t.Skipf("%s store does not implement backends.Passer: pass tests not run", s.Name())
	}
	if _, ok := s.(backends.Roster); !ok {
		t.Fatalf("%s store implements backends.Passer but not backends.Roster, which Pass checks the target in", s.Name())
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
func passSetup(t *testing.T, h Harness) (backends.Store, backends.Passer, backends.Session, backends.Session, backends.Record) {
	s, _ := h.NewStore(t)
	el := Election(t)
	a, b := newSession(t, s), newSession(t, s)
	held := mustCreate(t, a, el, "alice")
	mustJoin(t, s.(backends.Roster), b, el, "bob's record")
	return s, s.(backends.Passer), a, b, held
}

// mustPass passes held's key from a to b, which waits on the key, with
// value and checks the answer: b owns it, with a greater token.
func mustPass(t *testing.T, p backends.Passer, a, b backends.Session, held backends.Record, value string) backends.Record {
	t.Helper()
	return mustPassInLine(t, p, a, b, 0, held, value)
}

// mustPassInLine is mustPass to b waiting in line with entry (0: on the
// key).
func mustPassInLine(t *testing.T, p backends.Passer, a, b backends.Session, entry uint64, held backends.Record, value string) backends.Record {
	t.Helper()
	rec, err := p.Pass(Context(t, 10*time.Second), a, held.Election, held.Token, b.ID(), entry, []byte(value), false)
	if err != nil {
		t.Fatalf("Pass(%q, %d, to %s): %v", held.Election, held.Token, b.ID(), err)
	}
	if rec.Owner != b.ID() || rec.Token <= held.Token || string(rec.Value) != value || rec.Election != held.Election {
		t.Fatalf("Pass(%q) = %+v, want owner %s, a token above %d, value %q", held.Election, rec, b.ID(), held.Token, value)
	}
	return rec
}

// testPassToCandidate: the key passes to the candidate with a greater
// token; the old holder's Delete finds nothing; the new holder's Create
// returns the passed record; the key goes with the new holder's session,
// not the old one's.
func testPassToCandidate(t *testing.T, h Harness) {
	s, p, a, b, held := passSetup(t, h)
	el := held.Election
	passed := mustPass(t, p, a, b, held, "bob")
	ctx := Context(t, 10*time.Second)
	if got := mustGet(t, s, el); got.Differs(passed) || got.Owner != b.ID() {
		t.Fatalf("Get after Pass = %+v, want %+v", got, passed)
	}
	if err := a.Delete(ctx, el, held.Token); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("the old holder's Delete at its token after Pass: %v, want ErrNotFound", err)
	}
	if got, err := b.Create(ctx, el, []byte("bob again")); err != nil || got.Token != passed.Token || got.Owner != b.ID() {
		t.Fatalf("the new holder's Create after Pass = %+v, %v, want its passed record at token %d", got, err, passed.Token)
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

// testPassNoCandidate: a Pass to a session without a roster record in
// the election (never joined, left, or closed) fails with ErrNoCandidate
// and changes nothing.
func testPassNoCandidate(t *testing.T, h Harness) {
	s, p, a, b, held := passSetup(t, h)
	el := held.Election
	r := s.(backends.Roster)
	c := newSession(t, s)
	ctx := Context(t, 10*time.Second)
	mustJoin(t, r, c, Election(t), "carol elsewhere")
	check := func(what, to string) {
		t.Helper()
		if _, err := p.Pass(ctx, a, el, held.Token, to, 0, []byte("x"), false); !errors.Is(err, backends.ErrNoCandidate) {
			t.Fatalf("Pass %s: %v, want ErrNoCandidate", what, err)
		}
		if got := mustGet(t, s, el); got.Differs(held) || got.Owner != a.ID() {
			t.Fatalf("Get after Pass %s = %+v, want the key unchanged %+v", what, got, held)
		}
	}
	check("to a candidate of another election", c.ID())
	check("to an unknown session", "no-such-session")
	check("to the holder itself", a.ID())
	if err := r.Leave(ctx, b, el); err != nil {
		t.Fatal(err)
	}
	check("to a candidate that left", b.ID())
	d := newSession(t, s)
	mustJoin(t, r, d, el, "dave")
	if err := d.Close(ctx); err != nil {
		t.Fatal(err)
	}
	check("to a candidate whose session closed", d.ID())
}

// testPassNotFound: a Pass with another token, by another session, or on
// an absent key fails with ErrNotFound and changes nothing.
func testPassNotFound(t *testing.T, h Harness) {
	s, p, a, b, held := passSetup(t, h)
	el := held.Election
	ctx := Context(t, 10*time.Second)
	c := newSession(t, s)
	mustJoin(t, s.(backends.Roster), c, el, "carol's record")
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
		if _, err := p.Pass(ctx, tc.ss, el, tc.token, c.ID(), 0, []byte("x"), false); !errors.Is(err, backends.ErrNotFound) {
			t.Fatalf("Pass %s: %v, want ErrNotFound", tc.what, err)
		}
	}
	if got := mustGet(t, s, el); got.Differs(held) || got.Owner != a.ID() {
		t.Fatalf("Get after refused Passes = %+v, want the key unchanged %+v", got, held)
	}
	if err := a.Delete(ctx, el, held.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Pass(ctx, a, el, held.Token, b.ID(), 0, []byte("x"), false); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Pass on an absent key: %v, want ErrNotFound", err)
	}
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after a Pass on an absent key = %+v: it created the key", got)
	}
}

// testPassWaitSees: a Wait from the record before the Pass returns the
// passed key, both when waiting across it and when called after it.
func testPassWaitSees(t *testing.T, h Harness) {
	s, p, a, b, held := passSetup(t, h)
	before := mustGet(t, s, held.Election)
	ch := startWait(t, s, before)
	passed := mustPass(t, p, a, b, held, "bob")
	for i, ch := range []<-chan waitResult{ch, startWait(t, s, before)} {
		if got := await(t, ch); got.Token != passed.Token || got.Owner != b.ID() {
			t.Fatalf("Wait %d from before a Pass = %+v, want the passed key %+v", i, got, passed)
		}
	}
}

// testPassAfterProclaim: a proclaimed key passes too, and its token still
// rises; guarded writes then take the new token only, if the store offers
// them.
func testPassAfterProclaim(t *testing.T, h Harness) {
	s, p, a, b, held := passSetup(t, h)
	pr, ok := s.(backends.Proclaimer)
	if !ok {
		t.Skipf("%s store does not implement backends.Proclaimer: not run", s.Name())
	}
	mustProclaim(t, pr, a, held, "alice v2")
	passed := mustPass(t, p, a, b, held, "bob")
	g, ok := s.(backends.GuardedWriter)
	if !ok {
		return
	}
	ctx := Context(t, 10*time.Second)
	if err := g.GuardedPut(ctx, held.Election, held.Token, "test/k", []byte("old")); !errors.Is(err, backends.ErrNotLeader) {
		t.Fatalf("GuardedPut with the old token after a Pass: %v, want ErrNotLeader", err)
	}
	if err := g.GuardedPut(ctx, held.Election, passed.Token, "test/k", []byte("new")); err != nil {
		t.Fatalf("GuardedPut with the passed token: %v", err)
	}
}

// testPassLeaves: on a LeavingDeleter, a Pass with leave deletes the old
// holder's record with it, and the target's stays; with no record to
// delete it passes all the same.
func testPassLeaves(t *testing.T, h Harness) {
	s, p, a, b, held := passSetup(t, h)
	if _, ok := s.(backends.LeavingDeleter); !ok {
		t.Skipf("%s store is not a backends.LeavingDeleter: Pass is not asked to leave", s.Name())
	}
	r := s.(backends.Roster)
	el := held.Election
	mustJoin(t, r, a, el, "alice's record")
	before, _ := mustList(t, r, el)
	ctx := Context(t, 10*time.Second)
	passed, err := p.Pass(ctx, a, el, held.Token, b.ID(), 0, []byte("bob"), true)
	if err != nil || passed.Owner != b.ID() {
		t.Fatalf("Pass with leave = %+v, %v; want the key passed to %s", passed, err, b.ID())
	}
	recs, _ := mustList(t, r, el)
	wantRoster(t, recs, el, before[0]) // b's, joined first
	back, err := p.Pass(ctx, b, el, passed.Token, a.ID(), 0, []byte("alice"), true)
	if !errors.Is(err, backends.ErrNoCandidate) {
		t.Fatalf("Pass back to a that left = %+v, %v; want ErrNoCandidate", back, err)
	}
	mustJoin(t, r, a, el, "alice again")
	if _, err := p.Pass(ctx, b, el, passed.Token, a.ID(), 0, []byte("alice"), false); err != nil {
		t.Fatalf("Pass back to a that joined again: %v", err)
	}
	c := newSession(t, s)
	mustJoin(t, r, c, el, "carol's record")
	if err := r.Leave(ctx, a, el); err != nil {
		t.Fatalf("Leave: %v", err)
	}
	if _, err := p.Pass(ctx, a, el, mustGet(t, s, el).Token, c.ID(), 0, []byte("carol"), true); err != nil {
		t.Fatalf("Pass with leave from a holder with no record: %v", err)
	}
}
