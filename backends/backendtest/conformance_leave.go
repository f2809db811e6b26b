package backendtest

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// leaveSetup returns a store, a session a holding a fresh election's key
// with a record in its roster, and b's record there too.
func leaveSetup(t *testing.T, h Harness) (backends.Driver, backends.Session, backends.Record, backends.Record, backends.Record) {
	s, _ := newDriver(t, h)
	a, b := newSession(t, s), newSession(t, s)
	el := Election(t)
	ra, rb := mustJoin(t, a, el, "a"), mustJoin(t, b, el, "b")
	return s, a, mustCreate(t, a, el, "alice"), ra, rb
}

// testLeaveDeletesBoth: one End with Leave deletes the key and the
// session's record, and no other record; a waiter on the key sees the
// key go.
func testLeaveDeletesBoth(t *testing.T, h Harness) {
	s, a, held, _, rb := leaveSetup(t, h)
	el := held.Election
	wait := startWait(t, s, held)
	if _, err := a.End(Context(t, 10*time.Second), backends.End{Election: el, Token: held.Token, Leave: true}); err != nil {
		t.Fatalf("End with Leave(%q, %d): %v", el, held.Token, err)
	}
	if got := await(t, wait); got.Exists() {
		t.Fatalf("Wait's answer after End with Leave = %+v, want the key absent", got)
	}
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after End with Leave = %+v, want the key absent", got)
	}
	recs, _ := mustList(t, s, el)
	wantRoster(t, recs, el, rb)
}

// testLeaveNoRecord: a session with no record still deletes its key.
func testLeaveNoRecord(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	held := mustCreate(t, a, el, "alice")
	if _, err := a.End(Context(t, 10*time.Second), backends.End{Election: el, Token: held.Token, Leave: true}); err != nil {
		t.Fatalf("End with Leave with no record: %v, want nil", err)
	}
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after End with Leave = %+v, want the key absent", got)
	}
	recs, _ := mustList(t, s, el)
	wantRoster(t, recs, el)
}

// testLeaveNotFound: at a stale token, or from a session that does not
// hold the key, an End with Leave fails with ErrNotFound and changes nothing:
// the key and both records stay.
func testLeaveNotFound(t *testing.T, h Harness) {
	s, a, held, ra, rb := leaveSetup(t, h)
	el := held.Election
	ctx := Context(t, 10*time.Second)
	if _, err := a.End(ctx, backends.End{Election: el, Token: held.Token + 1000, Leave: true}); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("End with Leave at a stale token: %v, want ErrNotFound", err)
	}
	other := newSession(t, s)
	if _, err := other.End(ctx, backends.End{Election: el + "x", Token: held.Token, Leave: true}); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("End with Leave of an absent key: %v, want ErrNotFound", err)
	}
	if got := mustGet(t, s, el); got.Token != held.Token || got.Owner != held.Owner {
		t.Fatalf("Get after refused End with Leave = %+v, want %+v", got, held)
	}
	recs, _ := mustList(t, s, el)
	wantRoster(t, recs, el, ra, rb)
}
