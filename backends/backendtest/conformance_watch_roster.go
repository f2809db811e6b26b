package backendtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// runRosterSetTests runs the contract of a WatchSet's WatchRoster
// requests and their Stop.
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
	set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 100, Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(recs)})
	mustJoin(t, longSession(t, s), el, "first")
	awaitRoster(t, ch, el, 100)
	known, rev := mustList(t, s, el)
	return set, ch, known, rev
}

// awaitRoster fails t unless the next answer, within 20 s, is the roster
// answer to election el's request tag.
func awaitRoster(t *testing.T, ch <-chan backends.Change, el string, tag uint64) {
	t.Helper()
	c := AwaitChange(t, ch, 20*time.Second)
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
	set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 1, Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(known)})
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
		set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: tag, Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(known)})
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
	set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 1, Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(known)})
	awaitRoster(t, ch, el, 1)
}

// testRosterSetApart: an election's roster request and its Wait live
// apart: a join answers the roster request alone, a Stop of WatchRoster leaves the
// Wait, and Stop leaves the roster request.
func testRosterSetApart(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	set, ch, known, rev := rosterSet(t, s, el)
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: mustGet(t, s, el)})
	set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 2, Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(known)})
	b := longSession(t, s)
	mustJoin(t, b, el, "b")
	awaitRoster(t, ch, el, 2)
	noChange(t, ch, "for the key's Wait, with the key unchanged")
	known, rev = mustList(t, s, el)
	set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 3, Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(known)})
	set.Stop(el, backends.WatchRoster)
	mustCreate(t, b, el, "b")
	c := AwaitChange(t, ch, 20*time.Second)
	if c.Roster || c.Tag != 1 {
		t.Fatalf("answer %+v after a create, want the Wait's (tag 1)", c)
	}
	mustJoin(t, b, el, "b again")
	noChange(t, ch, "for a stopped roster request")
	known, rev = mustList(t, s, el)
	set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 4, Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(known)})
	set.Stop(el, backends.WatchKey)
	mustJoin(t, b, el, "b once more")
	awaitRoster(t, ch, el, 4)
}
