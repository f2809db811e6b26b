package backendtest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// nameSpaceSuffixes are election names that differ by a '/', a '.' or a
// segment: on a store that maps names to a tree, "p/b" would nest under
// "p" and "p/b/c" under "p/b".
var nameSpaceSuffixes = []string{"p", "pb", "p.b", "p/b", "p/b/c"}

// testNameSpace: elections whose names are prefixes of one another, or
// differ only by '/', are independent. Each is held at once by a session
// of its own, released, and taken again by another session with a
// greater token. With queue set, every candidate also enqueues first, on
// its own election's queue only, and finds no entry ahead but its own
// election's.
func testNameSpace(t *testing.T, h Harness, queue bool) {
	s, _ := newDriver(t, h)
	base := Election(t)
	names := make([]string, len(nameSpaceSuffixes))
	for i, suffix := range nameSpaceSuffixes {
		names[i] = base + "/" + suffix
	}
	first := takeAll(t, s, queue, names, nil)
	for i, el := range names {
		if err := Release(Context(t, 10*time.Second), first[i].ss, el, first[i].rec.Token); err != nil {
			t.Fatalf("Delete(%q) by its holder: %v", el, err)
		}
		if queue {
			if err := s.Dequeue(Context(t, 10*time.Second), first[i].entry); err != nil {
				t.Fatalf("Dequeue(%q): %v", el, err)
			}
		}
	}
	for _, el := range names {
		if got := mustGet(t, s, el); got.Exists() {
			t.Fatalf("Get(%q) after every holder released = %+v, want no leader", el, got)
		}
	}
	takeAll(t, s, queue, names, first)
}

// holding is a session holding an election, and its queue entry.
type holding struct {
	ss         backends.Session
	rec, entry backends.Record
}

// takeAll has a new session take each election in turn while every
// earlier one stays held, and checks that each holds its own; before, if
// given, are the previous holders, whose tokens the new ones must exceed.
// With queue set, each session enqueues first.
func takeAll(t *testing.T, s backends.Driver, queue bool, names []string, before []holding) []holding {
	t.Helper()
	out := make([]holding, len(names))
	for i, el := range names {
		h := holding{ss: longSession(t, s)} // held through both rounds, unrenewed
		if queue {
			h.entry = mustEnqueue(t, h.ss, el)
			if got := mustAhead(t, s, el, h.entry.Token); got.Exists() {
				t.Fatalf("Ahead(%q) of the only entry = %+v: another election's entry?", el, got)
			}
		}
		h.rec = mustCreate(t, h.ss, el, el)
		if before != nil && h.rec.Token <= before[i].rec.Token {
			t.Fatalf("re-taken %q at token %d, not above the previous holder's %d", el, h.rec.Token, before[i].rec.Token)
		}
		out[i] = h
	}
	for i, el := range names {
		got := mustGet(t, s, el)
		if got.Token != out[i].rec.Token || got.Owner != out[i].ss.ID() || string(got.Value) != el {
			t.Fatalf("Get(%q) with all held = %+v, want its holder %+v", el, got, out[i].rec)
		}
		if queue {
			if got := mustAhead(t, s, el, out[i].entry.Token+1); got.Token != out[i].entry.Token || got.Owner != out[i].ss.ID() {
				t.Fatalf("Ahead(%q) past its entry = %+v, want that entry %+v", el, got, out[i].entry)
			}
		}
	}
	return out
}
