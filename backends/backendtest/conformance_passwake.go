package backendtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// testPassWakesInLine: on a Passer that is also a Watcher, a WatchSet's
// WaitGone on the entry just ahead of a candidate's is answered, with the
// key's state, when the key is passed to that candidate, which watches that entry and not the
// key; once per pass: the same request made again after the answer
// waits. A WaitGone on the target's own entry, as its successor in line
// makes, is not answered: a pass wakes no one behind the target.
func testPassWakesInLine(t *testing.T, h Harness) {
	s, q := queuer(t, h)
	if _, ok := s.(backends.Watcher); !ok {
		t.Skipf("%s store does not implement backends.Watcher: a wait in line that wakes on a pass not checked", s.Name())
	}
	el := Election(t)
	leader := longSession(t, s)
	held := mustCreate(t, leader, el, "alice")
	head, target, after := longSession(t, s), longSession(t, s), longSession(t, s)
	first := mustEnqueue(t, q, head, el)
	mine := mustEnqueue(t, q, target, el)
	mustEnqueue(t, q, after, el)
	mustJoin(t, s.(backends.Roster), target, el, "target's record")
	set, ch := watchSet(t, s)
	set.WaitGone(1, mustAhead(t, q, el, mine.Token))
	behind, behindCh := watchSet(t, s)
	behind.WaitGone(2, mine)
	noChange(t, ch, "before the Pass")
	passed := mustPass(t, s.(backends.Passer), leader, target, held, "target")
	c := awaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 1)
	if c.Record.Token != passed.Token || c.Record.Owner != target.ID() {
		t.Fatalf("WaitGone answer = %+v, want the key passed, %+v (the entry ahead was %+v)", c.Record, passed, first)
	}
	set.WaitGone(3, mustAhead(t, q, el, mine.Token))
	noChange(t, ch, "to the same request made after the answer")
	noChange(t, behindCh, "to a WaitGone on the target's own entry")
	if got := mustGet(t, s, el); got.Token != passed.Token || got.Owner != target.ID() {
		t.Fatalf("Get after the Pass = %+v, want %+v", got, passed)
	}
}
