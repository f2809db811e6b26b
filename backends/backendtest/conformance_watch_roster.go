package backendtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// runRosterSetTests runs the contract of WatchSet.WaitRoster and
// StopRoster.
func runRosterSetTests(t *testing.T, h Harness) {
	tests := map[string]func(*testing.T, Harness){
		"SeesChange": testRosterSetSeesChange,
		"PastChange": testRosterSetPastChange,
		"Apart":      testRosterSetApart,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, h)
		})
	}
}

// rosterSet starts a WatchSet of s (see watchSet), with its stream
// open and past a change of election el's roster, which a member of its
// own joined: so a roster read after it is at a revision the stream
// covers, and no answer is owed early. It returns the set, its answers,
// and the roster read then, with its revision.
func rosterSet(t *testing.T, s backends.Driver, el string) (backends.WatchSet, <-chan backends.Change, []backends.Record, uint64) {
	t.Helper()
	set, ch := watchSet(t, s)
	recs, rev := mustList(t, s, el)
	set.WaitRoster(100, el, backends.RosterDigest(recs), rev)
	mustJoin(t, longSession(t, s), el, "first")
	awaitRoster(t, ch, el, 100)
	known, rev := mustList(t, s, el)
	return set, ch, known, rev
}

// awaitRoster fails t unless the next answer, within 20 s, is the roster
// answer to election el's request tag.
func awaitRoster(t *testing.T, ch <-chan backends.Change, el string, tag uint64) {
	t.Helper()
	c := awaitChange(t, ch, 20*time.Second)
	if !c.Roster || c.Election != el || c.Tag != tag || c.Record.Election != el {
		t.Fatalf("answer %+v, want the roster answer to %q's request %d", c, el, tag)
	}
}

// testRosterSetSeesChange: a roster request is answered by a join, a
// rewrite of a record's value and a leave, each after the request; not
// by changes to other rosters or to its election's key.
func testRosterSetSeesChange(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	set, ch, known, rev := rosterSet(t, s, el)
	set.WaitRoster(1, el, backends.RosterDigest(known), rev)
	b := longSession(t, s)
	mustJoin(t, b, el+"-other", "b")
	mustCreate(t, b, el, "b")
	noChange(t, ch, "with the roster unchanged")
	mustJoin(t, b, el, "b")
	awaitRoster(t, ch, el, 1)
	for i, change := range []func(){
		func() { mustJoin(t, b, el, "b again") },
		func() {
			if err := b.Leave(Context(t, 10*time.Second), el); err != nil {
				t.Fatalf("Leave: %v", err)
			}
		},
	} {
		tag := uint64(2 + i)
		known, rev := mustList(t, s, el)
		set.WaitRoster(tag, el, backends.RosterDigest(known), rev)
		change()
		awaitRoster(t, ch, el, tag)
	}
	noChange(t, ch, "after every request was answered")
}

// testRosterSetPastChange: a change made after the revision and before
// the request is answered at once.
func testRosterSetPastChange(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	set, ch, known, rev := rosterSet(t, s, el)
	mustJoin(t, longSession(t, s), el, "b")
	set.WaitRoster(1, el, backends.RosterDigest(known), rev)
	awaitRoster(t, ch, el, 1)
}

// testRosterSetApart: an election's roster request and its Wait live
// apart: a join answers the roster request alone, StopRoster leaves the
// Wait, and Stop leaves the roster request.
func testRosterSetApart(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	set, ch, known, rev := rosterSet(t, s, el)
	set.Wait(1, mustGet(t, s, el))
	set.WaitRoster(2, el, backends.RosterDigest(known), rev)
	b := longSession(t, s)
	mustJoin(t, b, el, "b")
	awaitRoster(t, ch, el, 2)
	noChange(t, ch, "for the key's Wait, with the key unchanged")
	known, rev = mustList(t, s, el)
	set.WaitRoster(3, el, backends.RosterDigest(known), rev)
	set.StopRoster(el)
	mustCreate(t, b, el, "b")
	c := awaitChange(t, ch, 20*time.Second)
	if c.Roster || c.Tag != 1 {
		t.Fatalf("answer %+v after a create, want the Wait's (tag 1)", c)
	}
	mustJoin(t, b, el, "b again")
	noChange(t, ch, "for a stopped roster request")
	known, rev = mustList(t, s, el)
	set.WaitRoster(4, el, backends.RosterDigest(known), rev)
	set.Stop(el)
	mustJoin(t, b, el, "b once more")
	awaitRoster(t, ch, el, 4)
}
