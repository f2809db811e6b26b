package backendtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

type waitResult struct {
	rec backends.Record
	err error
}

// startWait asks a WatchSet of its own for the first state of known's
// key that differs from known (a WatchKey request), and returns the
// channel its answer arrives on. The set is closed when t ends.
func startWait(t *testing.T, s backends.Driver, known backends.Record) <-chan waitResult {
	return startRequest(t, s, backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
}

// startRequest makes req in a WatchSet of its own and returns the channel
// its answer arrives on. The set is closed when t ends.
func startRequest(t *testing.T, s backends.Driver, req backends.WatchRequest) <-chan waitResult {
	ch := make(chan waitResult, 1)
	set := s.Watch(func(c backends.Change) { ch <- waitResult{c.Record, c.Err} })
	t.Cleanup(func() { _ = set.Close() })
	set.Wait(req)
	return ch
}

func await(t *testing.T, ch <-chan waitResult) backends.Record {
	t.Helper()
	return awaitWithin(t, ch, 20*time.Second)
}

func awaitWithin(t *testing.T, ch <-chan waitResult, d time.Duration) backends.Record {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("WatchKey answer: %v", r.err)
		}
		return r.rec
	case <-time.After(d):
		t.Fatalf("WatchKey request not answered within %v", d)
	}
	return backends.Record{}
}

// testWaitSeesDelete: a WatchKey request on a held key is answered on
// its deletion, with the absent key at a revision above the known one.
func testWaitSeesDelete(t *testing.T, h Harness) {
	s, _ := newDriver(t, h)
	a := newSession(t, s)
	el := Election(t)
	rec := mustCreate(t, a, el, "alice")
	before := mustGet(t, s, el)
	ch := startWait(t, s, before)
	if err := Release(Context(t, 10*time.Second), a, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	got := await(t, ch)
	if got.Exists() || got.Revision <= before.Revision || got.Election != el {
		t.Fatalf("WatchKey answer after delete = %+v, want absent at a revision above %d", got, before.Revision)
	}
}
