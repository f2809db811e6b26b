package backendtest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// runRosterTests runs the contract of the roster (Session.Join, Leave;
// Driver.List, and WatchRoster requests).
func runRosterTests(t *testing.T, h Harness) {
	tests := map[string]func(*testing.T, Harness){
		"Join":            testRosterJoin,
		"Rejoin":          testRosterRejoin,
		"Leave":           testRosterLeave,
		"SessionEnd":      testRosterSessionEnd,
		"ExpiredSession":  testRosterExpiredSession,
		"WatchRoster":     testRosterWaitList,
		"WatchRosterPast": testRosterWaitListPast,
		"Apart":           testRosterApart,
		"NameSpace":       testRosterNameSpace,
		"EndLeaves":       testLeaveDeletesBoth,
		"EndNoRecord":     testLeaveNoRecord,
		"EndNotFound":     testLeaveNotFound,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, h)
		})
	}
}

func mustJoin(t *testing.T, ss backends.Session, election, value string) backends.Record {
	t.Helper()
	rec, err := ss.Join(Context(t, 10*time.Second), election, []byte(value))
	if err != nil {
		t.Fatalf("Join(%q, %q): %v", election, value, err)
	}
	if rec.Token == 0 || rec.Owner != ss.ID() || rec.Election != election || string(rec.Value) != value || rec.Revision < rec.Token {
		t.Fatalf("Join(%q, %q) = %+v: want a token, owner %q, the election, the value and a revision at or after the token",
			election, value, rec, ss.ID())
	}
	return rec
}

func mustList(t *testing.T, r backends.Driver, election string) ([]backends.Record, uint64) {
	t.Helper()
	recs, rev, err := r.List(Context(t, 10*time.Second), election)
	if err != nil {
		t.Fatalf("List(%q): %v", election, err)
	}
	if rev == 0 {
		t.Fatalf("List(%q) at revision 0, want the store's position", election)
	}
	return recs, rev
}

// wantRoster fails t unless recs are want's records, in that order, each
// with want's Owner, Token and Value and with election set.
func wantRoster(t *testing.T, recs []backends.Record, election string, want ...backends.Record) {
	t.Helper()
	if len(recs) != len(want) {
		t.Fatalf("roster of %q = %s, want %s", election, showRoster(recs), showRoster(want))
	}
	for i, r := range recs {
		w := want[i]
		if r.Owner != w.Owner || r.Token != w.Token || string(r.Value) != string(w.Value) || r.Election != election {
			t.Fatalf("roster of %q = %s, want %s (election set)", election, showRoster(recs), showRoster(want))
		}
	}
}

func showRoster(recs []backends.Record) string {
	out := "["
	for i, r := range recs {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%s@%d=%q", r.Owner, r.Token, r.Value)
	}
	return out + "]"
}

// testRosterJoin: records take increasing tokens in the order joined, and
// List returns them in that order with their values.
func testRosterJoin(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	if recs, _ := mustList(t, s, el); len(recs) != 0 {
		t.Fatalf("roster of a new election = %s, want empty", showRoster(recs))
	}
	var joined []backends.Record
	for i := range 4 {
		rec := mustJoin(t, newSession(t, s), el, fmt.Sprintf("candidate %d", i))
		if i > 0 && rec.Token <= joined[i-1].Token {
			t.Fatalf("record %d token %d, want above the previous record's %d", i, rec.Token, joined[i-1].Token)
		}
		joined = append(joined, rec)
	}
	recs, rev := mustList(t, s, el)
	wantRoster(t, recs, el, joined...)
	if rev < joined[3].Revision {
		t.Fatalf("List at revision %d, before the last Join's %d", rev, joined[3].Revision)
	}
}

// testRosterRejoin: a second Join of a session replaces its value and
// keeps its Token and its place.
func testRosterRejoin(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	ss := newSession(t, s)
	first := mustJoin(t, ss, el, "v1")
	later := mustJoin(t, newSession(t, s), el, "later")
	again := mustJoin(t, ss, el, "v2")
	if again.Token != first.Token {
		t.Fatalf("re-Join = token %d, want %d (the same record)", again.Token, first.Token)
	}
	recs, _ := mustList(t, s, el)
	wantRoster(t, recs, el, again, later)
}

// testRosterLeave: Leave removes its session's record only; leaving again,
// or without a record, is not an error.
func testRosterLeave(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a, b, c := newSession(t, s), newSession(t, s), newSession(t, s)
	ra, rb := mustJoin(t, a, el, "a"), mustJoin(t, b, el, "b")
	ctx := Context(t, 10*time.Second)
	if err := a.Leave(ctx, el); err != nil {
		t.Fatalf("Leave: %v", err)
	}
	recs, _ := mustList(t, s, el)
	wantRoster(t, recs, el, rb)
	if err := a.Leave(ctx, el); err != nil {
		t.Fatalf("second Leave: %v, want nil", err)
	}
	if err := c.Leave(ctx, el); err != nil {
		t.Fatalf("Leave of a session that never joined: %v, want nil", err)
	}
	if again := mustJoin(t, a, el, "a"); again.Token <= rb.Token || again.Token == ra.Token {
		t.Fatalf("Join after Leave = token %d, want a new record after %d", again.Token, rb.Token)
	}
}

// testRosterSessionEnd: a record goes when its session is closed, and
// when the store expires it; the others stay.
func testRosterSessionEnd(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a, b, c := newSession(t, s), newSession(t, s), newSession(t, s)
	mustJoin(t, a, el, "a")
	mustJoin(t, b, el, "b")
	rc := mustJoin(t, c, el, "c")
	ctx := Context(t, 10*time.Second)
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.ExpireSession(ctx, b.ID()); err != nil {
		t.Fatalf("ExpireSession: %v", err)
	}
	recs, _ := mustList(t, s, el)
	wantRoster(t, recs, el, rc)
}

// testRosterExpiredSession: Join on an ended session fails with
// ErrSessionExpired and leaves no record.
func testRosterExpiredSession(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	ss := newSession(t, s)
	if err := ss.Close(Context(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.Join(Context(t, 10*time.Second), el, []byte("x")); !errors.Is(err, backends.ErrSessionExpired) {
		t.Fatalf("Join on a closed session: %v, want ErrSessionExpired", err)
	}
	if recs, _ := mustList(t, s, el); len(recs) != 0 {
		t.Fatalf("roster = %s: the closed session left a record", showRoster(recs))
	}
}

type listResult struct {
	recs []backends.Record
	rev  uint64
	err  error
}

// startWaitList asks a WatchSet of its own to tell when election's roster
// differs from recs, read at rev (a WatchRoster request), and returns the
// channel on which the roster, listed again on the answer, arrives. The
// set is closed when t ends.
func startWaitList(t *testing.T, r backends.Driver, election string, recs []backends.Record, rev uint64) <-chan listResult {
	ch := make(chan listResult, 1)
	ctx := Context(t, 2*time.Minute)
	set := r.Watch(func(c backends.Change) {
		if c.Err != nil {
			ch <- listResult{err: c.Err}
			return
		}
		recs, rev, err := r.List(ctx, election)
		ch <- listResult{recs, rev, err}
	})
	t.Cleanup(func() { _ = set.Close() })
	set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 1, Known: backends.Record{Election: election, Revision: rev},
		Digest: backends.RosterDigest(recs)})
	return ch
}

// awaitList returns the roster listed on a WatchRoster answer, failing t if it takes more than
// 20 s or fails. After, if not 0, is a revision the answer must exceed.
func awaitList(t *testing.T, ch <-chan listResult, after uint64, why string) []backends.Record {
	t.Helper()
	select {
	case res := <-ch:
		if res.err != nil {
			t.Fatalf("WatchRoster answer %s: %v", why, res.err)
		}
		if res.rev <= after {
			t.Fatalf("WatchRoster answer %s at revision %d, want above %d", why, res.rev, after)
		}
		return res.recs
	case <-time.After(20 * time.Second):
		t.Fatalf("WatchRoster request not answered within 20s %s", why)
	}
	return nil
}

// testRosterWaitList: a WatchRoster request waits while the roster is unchanged and
// wakes with the new roster on a join, a value change and a leave.
func testRosterWaitList(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a, b := longSession(t, s), longSession(t, s) // they outlive the quiet periods
	ra := mustJoin(t, a, el, "a")
	var rb, ra2 backends.Record
	got := waitListAcross(t, s, el, "after a join", func() { rb = mustJoin(t, b, el, "b") })
	wantRoster(t, got, el, ra, rb)
	got = waitListAcross(t, s, el, "after a value change", func() { ra2 = mustJoin(t, a, el, "a2") })
	wantRoster(t, got, el, ra2, rb)
	got = waitListAcross(t, s, el, "after a leave", func() {
		if err := b.Leave(Context(t, 10*time.Second), el); err != nil {
			t.Fatal(err)
		}
	})
	wantRoster(t, got, el, ra2)
}

// waitListAcross lists election's roster, starts a WaitList from there,
// checks that it waits, calls change, and returns the roster listed
// on its answer.
func waitListAcross(t *testing.T, r backends.Driver, election, why string, change func()) []backends.Record {
	t.Helper()
	recs, rev := mustList(t, r, election)
	ch := startWaitList(t, r, election, recs, rev)
	quietList(t, ch, "with the roster unchanged")
	change()
	return awaitList(t, ch, rev, why)
}

// quietList fails t if the WatchRoster request on ch is answered within quiet.
func quietList(t *testing.T, ch <-chan listResult, why string) {
	t.Helper()
	select {
	case res := <-ch:
		t.Fatalf("WatchRoster answered, %s %v (err %v) %s, want it waiting", showRoster(res.recs), res.rev, res.err, why)
	case <-time.After(quiet): // nothing to wait for: a return here is the failure
	}
}

// testRosterWaitListPast: a change made after the revision and before
// the call is answered at once, a session's end included.
func testRosterWaitListPast(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	a := newSession(t, s)
	mustJoin(t, a, el, "a")
	before, rev := mustList(t, s, el)
	if err := a.Close(Context(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if recs := awaitList(t, startWaitList(t, s, el, before, rev), rev, "after a close before the call"); len(recs) != 0 {
		t.Fatalf("WatchRoster answer after the only candidate's session closed = %s, want empty", showRoster(recs))
	}
}
