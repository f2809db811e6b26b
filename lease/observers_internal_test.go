package lease

import (
	"sync"
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// fakeSetDriver is a driver whose only method in use is Watch, which
// returns a set that records its requests.
type fakeSetDriver struct {
	backends.Driver
	set *fakeSet
}

func (d *fakeSetDriver) Watch(deliver func(backends.Change)) backends.WatchSet {
	d.set.deliver = deliver
	return d.set
}

// fakeSet records the requests of each election and kind, as a set keys
// them: a new one replaces the last.
type fakeSet struct {
	mu      sync.Mutex
	deliver func(backends.Change)
	reqs    map[string]backends.WatchRequest // by election
	made    chan backends.WatchRequest
}

func (s *fakeSet) Wait(req backends.WatchRequest) {
	s.mu.Lock()
	s.reqs[req.Known.Election] = req
	s.mu.Unlock()
	s.made <- req
}

func (s *fakeSet) Stop(election string, _ backends.WatchKind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.reqs, election)
}

func (s *fakeSet) Close() error { return nil }

func (s *fakeSet) answer(req backends.WatchRequest, rec backends.Record) {
	s.deliver(backends.Change{Election: req.Known.Election, Tag: req.Tag, Record: rec})
}

func newFakeObservers() (*observers, *fakeSet) {
	set := &fakeSet{reqs: map[string]backends.WatchRequest{}, made: make(chan backends.WatchRequest, 8)}
	return &observers{store: &fakeSetDriver{set: set}}, set
}

// waiter adds a waiter from known to o, and returns its channel.
func waiter(t *testing.T, o *observers, known backends.Record) chan backends.Change {
	t.Helper()
	ch := make(chan backends.Change, 1)
	if !o.add(backends.WatchRequest{Kind: backends.WatchKey, Known: known}, ch) {
		t.Fatal("add refused before close")
	}
	return ch
}

// answered fails t unless ch holds an answer with want's state.
func answered(t *testing.T, ch chan backends.Change, want backends.Record, who string) {
	t.Helper()
	select {
	case c := <-ch:
		if c.Err != nil || c.Record.Token != want.Token || c.Record.Revision != want.Revision {
			t.Fatalf("%s answered %+v, want %+v", who, c, want)
		}
	default:
		t.Fatalf("%s not answered", who)
	}
}

// made returns the request the set got last, failing t if it got none
// or more than one.
func made(t *testing.T, set *fakeSet) backends.WatchRequest {
	t.Helper()
	if len(set.made) != 1 {
		t.Fatalf("%d requests made, want 1", len(set.made))
	}
	return <-set.made
}

// TestObserversShare: observers of one election that know the same state
// share one request and its answer; one that knows a later state answers
// the others with it and waits from it; one that knows an earlier state
// is answered at once with the request's.
func TestObserversShare(t *testing.T) {
	o, set := newFakeObservers()
	s1 := backends.Record{Election: "e", Token: 1, Owner: "a", Revision: 10}
	s2 := backends.Record{Election: "e", Token: 2, Owner: "b", Revision: 20}
	s3 := backends.Record{Election: "e", Token: 3, Owner: "c", Revision: 30}

	x, y := waiter(t, o, s1), waiter(t, o, s1)
	req := made(t, set) // one request for both
	set.answer(req, s2)
	answered(t, x, s2, "the first observer")
	answered(t, y, s2, "the second observer")

	x = waiter(t, o, s2)
	made(t, set)
	y = waiter(t, o, s3) // later: answers x with s3, and waits from s3
	answered(t, x, s3, "the observer from the earlier state")
	if req = made(t, set); req.Known.Token != s3.Token {
		t.Fatalf("request %+v, want one from the later state", req)
	}
	answered(t, waiter(t, o, s1), s3, "an observer from a stale state")
	set.answer(req, s1) // any state that differs
	answered(t, y, s1, "the observer from the later state")

	z := waiter(t, o, s1)
	req = made(t, set)
	o.remove(backends.WatchRequest{Kind: backends.WatchKey, Known: s1}, z)
	if _, ok := set.reqs["e"]; ok {
		t.Fatal("the request outlived its last observer")
	}
	set.answer(req, s2) // a late answer goes nowhere
	if len(z) != 0 {
		t.Fatal("a withdrawn observer was answered")
	}
	if err := o.close(); err != nil {
		t.Fatal(err)
	}
	if o.add(backends.WatchRequest{Kind: backends.WatchKey, Known: s1}, make(chan backends.Change, 1)) {
		t.Fatal("add accepted after close")
	}
}
