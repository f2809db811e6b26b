package backendtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// testPassWakesInLine: on a store that passes keys, a WatchSet's
// WatchEntry request on the entry just ahead of a candidate's is
// answered, with the key's state, when the key is passed to that
// candidate, which watches that entry and not the key; once per pass: the
// same request made again after the answer waits. One on the target's
// own entry, as its successor in line makes, is not answered: a pass
// wakes no one behind the target; nor is one that names its own entry
// (WatchRequest.Mine), ahead of the target's: the waiter between the head
// and the target.
func testPassWakesInLine(t *testing.T, h Harness) {
	l := newWakeLine(t, h, "a pass")
	s, el := l.s, l.held.Election
	mustJoin(t, l.target, el, "target's record")
	set, ch := watchSet(t, s)
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: mustAhead(t, s, el, l.mine.Token), Mine: l.mine})
	behind, behindCh := watchSet(t, s)
	behind.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 2, Known: l.mine, Mine: l.last})
	between, betweenCh := watchSet(t, s)
	between.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 4, Known: l.first, Mine: l.middle})
	noChange(t, ch, "before the pass")
	passed := mustPassInLine(t, l.leader, l.target, l.mine.Token, l.held, "target")
	c := AwaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 1)
	if c.Record.Token != passed.Token || c.Record.Owner != l.target.ID() {
		t.Fatalf("WaitGone answer = %+v, want the key passed, %+v (the entry ahead was %+v)", c.Record, passed, l.middle)
	}
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 3, Known: mustAhead(t, s, el, l.mine.Token), Mine: l.mine})
	noChange(t, ch, "to the same request made after the answer")
	noChange(t, behindCh, "to a WaitGone on the target's own entry")
	noChange(t, betweenCh, "to the WaitGone of the waiter between the head and the target")
	if got := mustGet(t, s, el); got.Token != passed.Token || got.Owner != l.target.ID() {
		t.Fatalf("Get after the pass = %+v, want %+v", got, passed)
	}
}

// wakeLine is the line of the wake-in-line tests: a leader holding a
// fresh election's key, and four sessions in its queue, the target third
// (its entry mine, the head's first, the next middle, the one behind
// last).
type wakeLine struct {
	s                               backends.Driver
	leader, target                  backends.Session
	held, first, middle, mine, last backends.Record
}

// newWakeLine makes a wakeLine.
func newWakeLine(t *testing.T, h Harness, what string) wakeLine {
	s, _ := newDriver(t, h)
	el := Election(t)
	l := wakeLine{s: s, leader: longSession(t, s)}
	l.held = mustCreate(t, l.leader, el, "alice")
	head, middle, after := longSession(t, s), longSession(t, s), longSession(t, s)
	l.target = longSession(t, s)
	l.first = mustEnqueue(t, head, el)
	l.middle = mustEnqueue(t, middle, el)
	l.mine = mustEnqueue(t, l.target, el)
	l.last = mustEnqueue(t, after, el)
	return l
}

// testPassNoEntryWakes: a pass given no entry, to a candidate whose
// record showed none when the leader passed but that has joined the line
// since, still answers, once, a WaitGone on the entry ahead of the
// target's, with the key's state: the target learns of it.
func testPassNoEntryWakes(t *testing.T, h Harness) {
	l := newWakeLine(t, h, "a pass given no entry")
	s, el := l.s, l.held.Election
	mustJoin(t, l.target, el, "target's record")
	passed := mustPassInLine(t, l.leader, l.target, 0, l.held, "target")
	set, ch := watchSet(t, s)
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: mustAhead(t, s, el, l.mine.Token), Mine: l.mine})
	c := AwaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 1)
	if c.Record.Token != passed.Token || c.Record.Owner != l.target.ID() {
		t.Fatalf("WaitGone answer = %+v, want the key passed, %+v", c.Record, passed)
	}
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 2, Known: mustAhead(t, s, el, l.mine.Token), Mine: l.mine})
	noChange(t, ch, "to the same request made after the answer")
}
