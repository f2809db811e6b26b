package zookeeper

import (
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// TestWatchKeyKnownSync: a WatchKey request's first read syncs unless the
// session connection it is read on has seen the pointer write whose
// holder the request knows. A holder the Store read (here by Get; a
// Create that found the key held reads it the same way) is watched with
// no sync; a holder written since the connection last heard of the
// election, or a key known absent, is read after a sync, as a lagging
// server could show an older state. So is a holder read on a Store with
// no session (an observer), whose reads go on its own read link:
// go-zookeeper opens a new session on that link when its session
// expires, forgetting the zxids seen, so the link's position is no bound
// on its server's state. Each request is answered once the key differs.
func TestWatchKeyKnownSync(t *testing.T) {
	f := newWatchFixture(t)
	for _, c := range []struct {
		name     string
		known    func(el string) (*store, backends.Record) // the set's Store, and what it knows
		wantSync bool
	}{
		{"holder read", func(el string) (*store, backends.Record) {
			f.create(t, el)
			return f.s, f.get(t, el)
		}, false},
		{"holder written since", func(el string) (*store, backends.Record) {
			held := f.create(t, el)
			rec, err := f.pss.Proclaim(f.ctx, el, held.Token, []byte("unseen"))
			if err != nil {
				t.Fatal(err)
			}
			return f.s, rec
		}, true},
		{"absent", func(el string) (*store, backends.Record) { return f.s, backends.Record{Election: el} }, true},
		{"holder read on the read link", func(el string) (*store, backends.Record) {
			obs := newStore(t, f.servers, Options{TickTime: f.tick})
			f.create(t, el)
			rec, err := obs.Get(f.ctx, el)
			if err != nil {
				t.Fatal(err)
			}
			return obs, rec
		}, true},
	} {
		s, known := c.known(uniqueName("ws-known-"))
		reads := hookReads(t)
		watching := hookWatching(t)
		w, ch := watchOn(t, s)
		w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
		awaitWatching(t, watching, known.Election)
		if synced := <-reads; synced != c.wantSync {
			t.Errorf("%s: the first read synced: %v, want %v", c.name, synced, c.wantSync)
		}
		var err error
		if known.Owner == "" {
			_, err = f.pss.Create(f.ctx, known.Election, []byte("peer"))
		} else {
			_, err = f.pss.Proclaim(f.ctx, known.Election, known.Token, []byte("moved"))
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := nextChange(t, ch); got.Tag != 1 || got.Err != nil || !got.Record.Differs(known) {
			t.Fatalf("%s: answer %+v, want tag 1 with a state other than %+v", c.name, got, known)
		}
		_ = w.Close()
	}
}
