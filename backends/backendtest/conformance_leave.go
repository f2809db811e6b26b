package backendtest

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// runLeavingDeleteTests runs the contract of backends.LeavingDeleter if
// the harness's stores implement it, and says so loudly if they do not.
func runLeavingDeleteTests(t *testing.T, h Harness) {
	s, _ := h.NewStore(t)
	if _, ok := s.(backends.LeavingDeleter); !ok {
		t.Skipf("%s store does not implement backends.LeavingDeleter: delete-and-leave tests not run", s.Name())
	}
	tests := map[string]func(*testing.T, Harness){
		"DeletesBoth": testLeaveDeletesBoth,
		"NoRecord":    testLeaveNoRecord,
		"NotFound":    testLeaveNotFound,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, h)
		})
	}
}

// leaveSetup returns a store, a session a holding a fresh election's key
// with a record in its roster, and b's record there too.
func leaveSetup(t *testing.T, h Harness) (backends.Store, backends.Session, backends.Record, backends.Record, backends.Record) {
	s, r := roster(t, h)
	a, b := newSession(t, s), newSession(t, s)
	el := Election(t)
	ra, rb := mustJoin(t, r, a, el, "a"), mustJoin(t, r, b, el, "b")
	return s, a, mustCreate(t, a, el, "alice"), ra, rb
}

// testLeaveDeletesBoth: one DeleteLeaving deletes the key and the
// session's record, and no other record; a waiter on the key sees the
// key go.
func testLeaveDeletesBoth(t *testing.T, h Harness) {
	s, a, held, _, rb := leaveSetup(t, h)
	el := held.Election
	wait := startWait(t, s, held)
	if err := s.(backends.LeavingDeleter).DeleteLeaving(Context(t, 10*time.Second), a, el, held.Token); err != nil {
		t.Fatalf("DeleteLeaving(%q, %d): %v", el, held.Token, err)
	}
	if got := await(t, wait); got.Exists() {
		t.Fatalf("Wait's answer after DeleteLeaving = %+v, want the key absent", got)
	}
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after DeleteLeaving = %+v, want the key absent", got)
	}
	recs, _ := mustList(t, s.(backends.Roster), el)
	wantRoster(t, recs, el, rb)
}

// testLeaveNoRecord: a session with no record still deletes its key.
func testLeaveNoRecord(t *testing.T, h Harness) {
	s, r := roster(t, h)
	a := newSession(t, s)
	el := Election(t)
	held := mustCreate(t, a, el, "alice")
	if err := s.(backends.LeavingDeleter).DeleteLeaving(Context(t, 10*time.Second), a, el, held.Token); err != nil {
		t.Fatalf("DeleteLeaving with no record: %v, want nil", err)
	}
	if got := mustGet(t, s, el); got.Exists() {
		t.Fatalf("Get after DeleteLeaving = %+v, want the key absent", got)
	}
	recs, _ := mustList(t, r, el)
	wantRoster(t, recs, el)
}

// testLeaveNotFound: at a stale token, or from a session that does not
// hold the key, DeleteLeaving fails with ErrNotFound and changes nothing:
// the key and both records stay.
func testLeaveNotFound(t *testing.T, h Harness) {
	s, a, held, ra, rb := leaveSetup(t, h)
	el := held.Election
	ld := s.(backends.LeavingDeleter)
	ctx := Context(t, 10*time.Second)
	if err := ld.DeleteLeaving(ctx, a, el, held.Token+1000); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("DeleteLeaving at a stale token: %v, want ErrNotFound", err)
	}
	other := newSession(t, s)
	if err := ld.DeleteLeaving(ctx, other, el+"x", held.Token); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("DeleteLeaving of an absent key: %v, want ErrNotFound", err)
	}
	if got := mustGet(t, s, el); got.Token != held.Token || got.Owner != held.Owner {
		t.Fatalf("Get after refused DeleteLeaving = %+v, want %+v", got, held)
	}
	recs, _ := mustList(t, s.(backends.Roster), el)
	wantRoster(t, recs, el, ra, rb)
}
