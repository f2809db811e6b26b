package zookeeper

import (
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// TestGetLeadGuessed: a Get of a key whose pointer the Store has seen
// checks the lead node it last saw at the same time as it reads the
// pointer, and takes that check only when the pointer still names that
// node and the node is there; a key passed to another node since, or
// whose holder's session ended, reads as it is.
func TestGetLeadGuessed(t *testing.T) {
	f := newWatchFixture(t)
	el := uniqueName("get-guess-")
	held := f.create(t, el)
	join(t, f.s, f.ss, el, "target")
	guessed := make(chan bool, 16)
	setHook(t, &testHookLeadGuessed, func(ok bool) { guessed <- ok })
	get := func(step string, want backends.Record, guess bool) {
		t.Helper()
		got, err := f.s.Get(f.ctx, want.Election)
		if err != nil || got.Owner != want.Owner || got.Token != want.Token {
			t.Fatalf("%s: Get = %+v, %v; want owner %q, token %d", step, got, err, want.Owner, want.Token)
		}
		select {
		case g := <-guessed:
			if g != guess {
				t.Fatalf("%s: the check made with the pointer's read was taken: %v, want %v", step, g, guess)
			}
		default:
			if want.Exists() {
				t.Fatalf("%s: no lead node was checked", step)
			}
		}
	}
	get("first read", held, false)
	get("holder unchanged", held, true)
	passed, err := f.pss.End(f.ctx, backends.End{Election: el, Token: held.Token,
		To: &backends.Target{Session: f.ss.ID(), Value: []byte("target")}})
	if err != nil {
		t.Fatal(err)
	}
	get("passed since", passed, false)
	get("passed, unchanged", passed, true)

	el2 := uniqueName("get-guess-gone-")
	ss, err := f.peer.NewSession(f.ctx, f.pss.TTL())
	if err != nil {
		t.Fatal(err)
	}
	held2, err := ss.Create(f.ctx, el2, []byte("gone"))
	if err != nil {
		t.Fatal(err)
	}
	get("second election", held2, false)
	get("second election, unchanged", held2, true)
	if err := ss.Close(f.ctx); err != nil {
		t.Fatal(err)
	}
	get("holder's session closed", backends.Record{Election: el2}, false)
}
