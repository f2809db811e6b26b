package backendtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// testRosterApart: candidate records are neither leader keys nor queue
// entries. Roster writes, some by the holder's own session, leave the
// leader key as it was: a Get shows it unchanged, and a Wait on it (and a
// WatchSet's, if the store has one) is not answered. Neither the leader
// key nor the queue entries show in the roster, and records do not show
// in the queue.
func testRosterApart(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	el := Election(t)
	holder, other := longSession(t, s), longSession(t, s) // they outlive the quiet periods
	rec := mustCreate(t, holder, el, "holder")
	entry := mustEnqueue(t, other, el)
	known := mustGet(t, s, el)
	wait := startWait(t, s, known)
	answers := watchLeader(t, s, known)
	rh := mustJoin(t, holder, el, "holder's record")
	mustJoin(t, other, el, "other's record")
	rh = mustJoin(t, holder, el, "holder's record, again")
	if err := other.Leave(Context(t, 10*time.Second), el); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-wait:
		t.Fatalf("Wait on the leader key returned %+v (err %v) on roster writes, want it waiting", res.rec, res.err)
	case <-time.After(quiet): // nothing to wait for: a return here is the failure
	}
	noChange(t, answers, "to a WatchSet Wait on the leader key, on roster writes")
	if got := mustGet(t, s, el); got.Differs(known) || got.Owner != holder.ID() {
		t.Fatalf("Get after roster writes = %+v, want the leader key %+v", got, known)
	}
	recs, _ := mustList(t, s, el)
	wantRoster(t, recs, el, rh)
	later := mustEnqueue(t, longSession(t, s), el)
	if got := mustAhead(t, s, el, later.Token); got.Token != entry.Token {
		t.Fatalf("Ahead = %+v, want the queue entry %+v: a record in the queue?", got, entry)
	}
	if err := Release(Context(t, 10*time.Second), holder, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	if got := await(t, wait); got.Exists() {
		t.Fatalf("Wait after the holder's Delete = %+v, want absent", got)
	}
}

// watchLeader asks a WatchSet of s for the change of known's election,
// and returns the channel of its answers.
func watchLeader(t *testing.T, s backends.Driver, known backends.Record) <-chan backends.Change {
	set, ch := watchSet(t, s)
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
	return ch
}

// testRosterNameSpace: the rosters of elections whose names are prefixes
// of one another, or differ only by '/', are independent: each lists its
// own record only, and a WaitList on one is not woken by a join to
// another.
func testRosterNameSpace(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	base := Election(t)
	first := base + "/" + nameSpaceSuffixes[0]
	recs, rev := mustList(t, s, first)
	ch := startWaitList(t, s, first, recs, rev)
	joined := make([]backends.Record, len(nameSpaceSuffixes))
	for i, suffix := range nameSpaceSuffixes[1:] {
		joined[i+1] = mustJoin(t, longSession(t, s), base+"/"+suffix, suffix)
	}
	quietList(t, ch, "on joins to other elections")
	joined[0] = mustJoin(t, longSession(t, s), first, nameSpaceSuffixes[0])
	wantRoster(t, awaitList(t, ch, rev, "after a join"), first, joined[0])
	for i, suffix := range nameSpaceSuffixes {
		el := base + "/" + suffix
		recs, _ := mustList(t, s, el)
		wantRoster(t, recs, el, joined[i])
	}
}
