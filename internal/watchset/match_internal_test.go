package watchset

import (
	"fmt"
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// bare returns a Set with no goroutine and no source, for the tests that
// hand it Batches.
func bare() *Set[struct{}] {
	return &Set[struct{}]{kick: make(chan struct{}, 1), reqs: map[string]*Request{}, rosters: map[string]*Request{},
		passWoke: map[string]uint64{}, rosterSeen: map[string]uint64{}}
}

// leader is the LeaderState Fact of election el held by owner with value
// v since rev.
func leader(el, owner, v string, token, rev uint64) Fact {
	return Fact{What: LeaderState, Election: el, Revision: rev,
		Record: backends.Record{Election: el, Owner: owner, Value: []byte(v), Token: token, Revision: rev}}
}

// TestSkipsPastFacts: a stream opened on a member behind the request's
// record replays changes at or before it, which are not news; a request
// from before the stream's position is covered by a read, one from after
// it is not.
func TestSkipsPastFacts(t *testing.T) {
	w := bare()
	known := leader("x", "2a", "me", 12, 12).Record
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: backends.Record{Election: "y", Revision: 5}})
	w.onBatch(Batch{Position: 8})
	w.cover()
	if len(w.toRead) != 1 || w.toRead[0].Known.Election != "y" {
		t.Fatalf("requests to read = %v, want y's alone (x's record is ahead of the stream)", w.toRead)
	}
	replay := []Fact{leader("x", "7", "before", 9, 9),
		{What: LeaderState, Election: "x", Revision: 11, Record: backends.Record{Election: "x", Revision: 11}},
		leader("x", "2a", "me", 12, 12)}
	w.onBatch(Batch{Facts: replay, Position: 12})
	if len(w.out) != 0 {
		t.Fatalf("answers on a replay of the past = %+v, want none", w.out)
	}
	gone := Fact{What: LeaderState, Election: "x", Revision: 13, Record: backends.Record{Election: "x", Revision: 13}}
	w.onBatch(Batch{Facts: []Fact{gone}, Position: 13})
	if len(w.out) != 1 || w.out[0].Tag != 1 || w.out[0].Record.Exists() || w.out[0].Record.Revision != 13 {
		t.Fatalf("answers on a later delete = %+v, want x's, absent at revision 13", w.out)
	}
}

// TestRosterSeenBounded: the Set's note of rosters that changed since the
// stream began stays within maxRosterSeen entries however many elections
// come and go, and a roster request from before it was last emptied is
// read, while one from after it waits for a change of its own roster.
func TestRosterSeenBounded(t *testing.T) {
	w := bare()
	w.onBatch(Batch{Position: 10, RosterWrites: true})
	const n = 3 * maxRosterSeen
	for i := range n {
		w.onBatch(Batch{Facts: []Fact{{What: RosterWrite, Election: fmt.Sprint("el", i), Revision: uint64(11 + i)}}})
	}
	if len(w.rosterSeen) > maxRosterSeen {
		t.Fatalf("rosterSeen holds %d elections after %d came and went, want at most %d", len(w.rosterSeen), n, maxRosterSeen)
	}
	w.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 1, Known: backends.Record{Election: "quiet", Revision: 12}, Digest: 7})      // read before the last emptying
	w.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 2, Known: backends.Record{Election: "quiet2", Revision: 11 + n}, Digest: 7}) // read after every change
	w.cover()
	if len(w.out) != 0 || len(w.toRead) != 1 || w.toRead[0].Tag != 1 {
		t.Fatalf("answers %+v, reads %+v; want none, and tag 1's read (its roster's changes are forgotten)", w.out, w.toRead)
	}
	w.onRead(readDone{reqs: w.toRead, batch: Batch{Facts: []Fact{{What: RosterDigest, Election: "quiet", Revision: 11 + n, Entry: 8}}}})
	if len(w.out) != 1 || w.out[0].Tag != 1 || !w.out[0].Roster {
		t.Fatalf("answers = %+v, want tag 1's (the read roster differs)", w.out)
	}
	w.onBatch(Batch{Facts: []Fact{{What: RosterWrite, Election: "quiet2", Revision: uint64(12 + n)}}})
	if len(w.out) != 2 || w.out[1].Tag != 2 {
		t.Fatalf("answers = %+v, want tag 2's after its roster changed", w.out)
	}
}

// TestPassWakesOnce: a pass wakes a Set's WaitGone in its election once,
// whether the pass came before the request or after, and only for an
// entry ahead of the target's.
func TestPassWakesOnce(t *testing.T) {
	w := bare()
	w.onBatch(Batch{Position: 10})
	entry := backends.Record{Election: "x", Owner: "a", Token: 5, Revision: 10}
	pass := Fact{What: Passed, Election: "x", Revision: 9, Entry: 7, Record: leader("x", "b", "", 9, 9).Record}
	for tag, want := range []int{1, 1} { // the second pass fact is the same pass
		w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: uint64(tag), Known: entry})
		w.onRead(readDone{batch: Batch{Facts: []Fact{pass}}})
		if len(w.out) != want {
			t.Fatalf("answers = %+v, want %d", w.out, want)
		}
	}
	behind := entry
	behind.Token = 8 // behind the target's entry: not woken
	w.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 3, Known: behind})
	w.onBatch(Batch{Facts: []Fact{{What: Passed, Election: "x", Revision: 12, Entry: 7, Record: pass.Record}}})
	if len(w.out) != 1 {
		t.Fatalf("answers = %+v, want none to an entry behind the target's", w.out[1:])
	}
}
