package backendtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// runWatchSetTests runs the contract of Driver.Watch and WatchSet.
func runWatchSetTests(t *testing.T, h Harness) {
	tests := map[string]func(*testing.T, Harness){
		"PastChange":       testSetPastChange,
		"SeesChange":       testSetSeesChange,
		"EqualNotAnswered": testSetEqualNotAnswered,
		"Replace":          testSetReplace,
		"Stop":             testSetStop,
		"WaitGone":         testSetWaitGone,
		"Close":            testSetClose,
		"Many":             testSetMany,
		"Severed":          testSetSevered,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, h)
		})
	}
}

// quiet is how long the watch set tests wait to see that no answer comes:
// nothing is awaited, so an answer within it is the failure.
const quiet = 300 * time.Millisecond

// watchSet starts a WatchSet of s whose answers arrive on the returned
// channel (buffered for 1024; beyond that deliver blocks, which the
// contract allows), closed when t ends.
func watchSet(t *testing.T, s backends.Driver) (backends.WatchSet, <-chan backends.Change) {
	ch := make(chan backends.Change, 1024)
	set := s.Watch(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })
	return set, ch
}

// AwaitChange returns the next answer on ch, a WatchSet's deliveries,
// failing t if none comes within d or if it carries an error.
func AwaitChange(t *testing.T, ch <-chan backends.Change, d time.Duration) backends.Change {
	t.Helper()
	select {
	case c := <-ch:
		if c.Err != nil {
			t.Fatalf("answer to %q (tag %d) has error %v, want a record", c.Election, c.Tag, c.Err)
		}
		return c
	case <-time.After(d):
		t.Fatalf("no answer within %v", d)
	}
	return backends.Change{}
}

// noChange fails t if an answer arrives within quiet.
func noChange(t *testing.T, ch <-chan backends.Change, why string) {
	t.Helper()
	select {
	case c := <-ch:
		t.Fatalf("answer %+v %s, want none", c, why)
	case <-time.After(quiet): // nothing to wait for: an answer here is the failure
	}
}

// wantAnswer checks that c answers election el's request tag.
func wantAnswer(t *testing.T, c backends.Change, el string, tag uint64) {
	t.Helper()
	if c.Election != el || c.Tag != tag || c.Record.Election != el {
		t.Fatalf("answer %+v, want election %q tag %d", c, el, tag)
	}
}

// testSetPastChange: a change made after known.Revision and before the
// request is answered at once.
func testSetPastChange(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	rec := mustCreate(t, a, el, "alice")
	before := mustGet(t, s, el)
	if err := Release(Context(t, 10*time.Second), a, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	set, ch := watchSet(t, s)
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 7, Known: before})
	c := AwaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 7)
	if c.Record.Exists() || c.Record.Revision <= before.Revision {
		t.Fatalf("answer to a wait from before a delete = %+v, want absent at a revision above %d", c.Record, before.Revision)
	}
}

// testSetSeesChange: a change made after the request is answered, with the
// new state; deliver may ask again from inside deliver, and the second
// request sees the next change.
func testSetSeesChange(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	ch := make(chan backends.Change, 4)
	var set backends.WatchSet
	set = s.Watch(func(c backends.Change) {
		if c.Tag == 1 && c.Err == nil {
			set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: c.Record})
		}
		ch <- c
	})
	t.Cleanup(func() { _ = set.Close() })
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: mustGet(t, s, el)})
	rec := mustCreate(t, a, el, "alice")
	c := AwaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 1)
	if c.Record.Token != rec.Token || c.Record.Owner != a.ID() || string(c.Record.Value) != "alice" {
		t.Fatalf("answer after create = %+v, want %+v", c.Record, rec)
	}
	if err := Release(Context(t, 10*time.Second), a, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	c = AwaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 2)
	if c.Record.Exists() {
		t.Fatalf("answer after delete = %+v, want absent", c.Record)
	}
	noChange(t, ch, "after both requests were answered")
}

// testSetEqualNotAnswered: a request whose key still equals known is not
// answered, whatever happens to other elections and to its own queue; a
// change of its own key then is.
func testSetEqualNotAnswered(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	rec := mustCreate(t, a, el, "alice")
	set, ch := watchSet(t, s)
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: mustGet(t, s, el)})
	for i := range 3 {
		mustCreate(t, a, el+"-other-"+string(rune('a'+i)), "x")
	}
	mustEnqueue(t, newSession(t, s), el)
	noChange(t, ch, "with the key unchanged")
	if err := Release(Context(t, 10*time.Second), a, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	c := AwaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 1)
	if c.Record.Exists() {
		t.Fatalf("answer after delete = %+v, want absent", c.Record)
	}
}

// testSetReplace: a second request for an election replaces the first, so
// the change that follows answers the second tag alone.
func testSetReplace(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	set, ch := watchSet(t, s)
	known := mustGet(t, s, el)
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: known})
	mustCreate(t, a, el, "alice")
	c := AwaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 2)
	if !c.Record.Exists() {
		t.Fatalf("answer after create = %+v, want the key", c.Record)
	}
	noChange(t, ch, "for the replaced request")
}

// testSetStop: a stopped request is not answered; a later one for the
// same election is.
func testSetStop(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	set, ch := watchSet(t, s)
	known := mustGet(t, s, el)
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
	set.Stop(el, backends.WatchKey)
	set.Stop(el+"-never-asked", backends.WatchKey)
	mustCreate(t, a, el, "alice")
	noChange(t, ch, "for a stopped request")
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: known})
	c := AwaitChange(t, ch, 20*time.Second)
	wantAnswer(t, c, el, 2)
	if !c.Record.Exists() {
		t.Fatalf("answer after create = %+v, want the key", c.Record)
	}
}
