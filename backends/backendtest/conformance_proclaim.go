package backendtest

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// runProclaimTests runs the contract of Session.Proclaim.
func runProclaimTests(t *testing.T, h Harness) {
	tests := map[string]func(*testing.T, Harness){
		"Holder":        testProclaimHolder,
		"WaitSees":      testProclaimWaitSees,
		"NotFound":      testProclaimNotFound,
		"ClosedSession": testProclaimClosed,
		"Guarded":       testProclaimGuarded,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, h)
		})
	}
}

// mustProclaim proclaims value in election's key held by ss at held's
// token and checks the answer: the new value, the same Token and Owner.
func mustProclaim(t *testing.T, ss backends.Session, held backends.Record, value string) backends.Record {
	t.Helper()
	rec, err := ss.Proclaim(Context(t, 10*time.Second), held.Election, held.Token, []byte(value))
	if err != nil {
		t.Fatalf("Proclaim(%q, %d, %q): %v", held.Election, held.Token, value, err)
	}
	if rec.Token != held.Token || rec.Owner != ss.ID() || string(rec.Value) != value || rec.Election != held.Election {
		t.Fatalf("Proclaim(%q) = %+v, want token %d, owner %s, value %q", held.Election, rec, held.Token, ss.ID(), value)
	}
	return rec
}

// testProclaimHolder: the holder's Proclaim changes the value, again and
// again, and keeps the Token and the Owner; the key stays bound to the
// session (it goes when the session closes).
func testProclaimHolder(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a := newSession(t, s)
	held := mustCreate(t, a, el, "alice")
	for _, v := range []string{"alice v2", "alice v3"} {
		mustProclaim(t, a, held, v)
		if got := mustGet(t, s, el); got.Token != held.Token || got.Owner != a.ID() || string(got.Value) != v {
			t.Fatalf("Get after Proclaim = %+v, want token %d, owner %s, value %q", got, held.Token, a.ID(), v)
		}
	}
	if err := a.Close(Context(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after the holder's session closed = %+v: the proclaimed key outlived its session", got)
	}
}

// testProclaimWaitSees: a Wait from the record before the Proclaim
// returns the new value, both when waiting across it and when called
// after it.
func testProclaimWaitSees(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a := newSession(t, s)
	held := mustCreate(t, a, el, "alice")
	before := mustGet(t, s, el)
	ch := startWait(t, s, before)
	mustProclaim(t, a, held, "alice v2")
	for i, ch := range []<-chan waitResult{ch, startWait(t, s, before)} {
		got := await(t, ch)
		if got.Token != held.Token || got.Owner != a.ID() || string(got.Value) != "alice v2" || got.Revision <= before.Revision {
			t.Fatalf("Wait %d from before a Proclaim = %+v, want token %d, value %q, a revision above %d",
				i, got, held.Token, "alice v2", before.Revision)
		}
	}
}

// testProclaimNotFound: a Proclaim with another token, by another
// session, or on an absent key fails with ErrNotFound and changes
// nothing.
func testProclaimNotFound(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a, b := newSession(t, s), newSession(t, s)
	ctx := Context(t, 10*time.Second)
	if _, err := a.Proclaim(ctx, el, 1, []byte("x")); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Proclaim on an absent key: %v, want ErrNotFound", err)
	}
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after a Proclaim on an absent key = %+v: it created the key", got)
	}
	held := mustCreate(t, a, el, "alice")
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
		if _, err := tc.ss.Proclaim(ctx, el, tc.token, []byte("x")); !errors.Is(err, backends.ErrNotFound) {
			t.Fatalf("Proclaim %s: %v, want ErrNotFound", tc.what, err)
		}
	}
	if got := mustGet(t, s, el); got.Differs(held) || got.Owner != a.ID() {
		t.Fatalf("Get after refused Proclaims = %+v, want the key unchanged %+v", got, held)
	}
}

// testProclaimClosed: after the holder's session closed, its Proclaim
// fails with ErrSessionExpired or ErrNotFound and creates nothing.
func testProclaimClosed(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a := newSession(t, s)
	held := mustCreate(t, a, el, "alice")
	ctx := Context(t, 10*time.Second)
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := a.Proclaim(ctx, el, held.Token, []byte("x"))
	if !errors.Is(err, backends.ErrSessionExpired) && !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Proclaim on a closed session: %v, want ErrSessionExpired or ErrNotFound", err)
	}
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after a closed session's Proclaim = %+v, want absent", got)
	}
}

// testProclaimGuarded: the token still guards writes after a Proclaim.
func testProclaimGuarded(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a := newSession(t, s)
	held := mustCreate(t, a, el, "alice")
	mustProclaim(t, a, held, "alice v2")
	if err := s.GuardedPut(Context(t, 10*time.Second), backends.Guarded{Election: el, Token: held.Token, Key: "test/k", Value: []byte("v")}); err != nil {
		t.Fatalf("GuardedPut with the token after a Proclaim: %v", err)
	}
}
