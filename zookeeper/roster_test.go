package zookeeper

import (
	"errors"
	"slices"
	"testing"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
)

// entries returns "owner=value" for each of recs, in order.
func entries(recs []backends.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Owner+"="+string(r.Value))
	}
	return out
}

// owners returns the Owners of recs, in order.
func owners(recs []backends.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Owner)
	}
	return out
}

// join joins el's roster with value, failing t on an error.
func join(t *testing.T, s *store, ss backends.Session, el, value string) backends.Record {
	t.Helper()
	rec, err := ss.Join(testCtx(t), el, []byte(value))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Owner != ss.ID() || rec.Token == 0 || string(rec.Value) != value || rec.Election != el {
		t.Fatalf("Join = %+v, want owner %s, a token and value %q", rec, ss.ID(), value)
	}
	return rec
}

// TestRosterJoinListLeave: records list in join order with their values;
// a second Join rewrites the value and keeps the Token; Leave removes the
// record, and a second Leave, or one after the session ended, is no error.
func TestRosterJoinListLeave(t *testing.T) {
	f := newWatchFixture(t)
	el := uniqueName("roster-")
	if recs, _, err := f.s.List(f.ctx, el); err != nil || len(recs) != 0 {
		t.Fatalf("List of no roster = %+v, %v; want none", recs, err)
	}
	a := join(t, f.s, f.ss, el, "a1")
	b := join(t, f.peer, f.pss, el, "b1")
	a2 := join(t, f.s, f.ss, el, "a2")
	if a2.Token != a.Token || a2.Revision <= a.Revision {
		t.Fatalf("rejoin = %+v, want token %d kept at a revision above %d", a2, a.Token, a.Revision)
	}
	recs, rev, err := f.peer.List(f.ctx, el)
	if err != nil || !slices.Equal(owners(recs), []string{f.ss.ID(), f.pss.ID()}) || rev < b.Revision {
		t.Fatalf("List = %+v at %d, %v; want a then b at or above %d", recs, rev, err, b.Revision)
	}
	if string(recs[0].Value) != "a2" || recs[0].Token != a.Token || recs[1].Token != b.Token {
		t.Fatalf("List = %+v, want a's new value a2 and both tokens", recs)
	}
	if err := f.ss.Leave(f.ctx, el); err != nil {
		t.Fatal(err)
	}
	if err := f.ss.Leave(f.ctx, el); err != nil {
		t.Fatalf("second Leave: %v", err)
	}
	if recs, _, err := f.s.List(f.ctx, el); err != nil || !slices.Equal(owners(recs), []string{f.pss.ID()}) {
		t.Fatalf("List after Leave = %+v, %v; want b only", recs, err)
	}
	if err := f.pss.Close(f.ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.pss.Leave(f.ctx, el); err != nil {
		t.Fatalf("Leave of a closed session: %v", err)
	}
	if _, err := f.pss.Join(f.ctx, el, nil); !errors.Is(err, backends.ErrSessionExpired) {
		t.Fatalf("Join of a closed session: %v, want ErrSessionExpired", err)
	}
	if recs, _, err := f.s.List(f.ctx, el); err != nil || len(recs) != 0 {
		t.Fatalf("List after the session closed = %+v, %v; want none", recs, err)
	}
}

// waitRoster makes a WatchRoster request for el's roster as listed
// (recs at rev) on w, tagged tag.
func waitRoster(w backends.WatchSet, el string, tag uint64, recs []backends.Record, rev uint64) {
	w.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: tag,
		Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(recs)})
}

// nextRoster waits for the answer tagged tag and lists el's roster.
func nextRoster(t *testing.T, f *watchFixture, ch <-chan backends.Change, el string, tag uint64) ([]backends.Record, uint64) {
	t.Helper()
	if c := nextChange(t, ch); c.Tag != tag || c.Err != nil || !c.Roster || c.Election != el {
		t.Fatalf("Change %+v, want the roster answer tagged %d", c, tag)
	}
	recs, rev, err := f.s.List(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	return recs, rev
}

// TestRosterWaitList: a WatchRoster request from a revision is answered
// at once if the roster changed since, and otherwise on the next join
// (the first one too, which also creates the roster node), rewrite,
// leave, or end of a session; each time List then shows the new roster
// at a higher revision. No read of the set's syncs first.
func TestRosterWaitList(t *testing.T) {
	f := newWatchFixture(t)
	el := uniqueName("roster-wait-")
	watching := hookWatching(t)
	reads := hookReads(t)
	w, ch := watchOn(t, f.s)
	recs, rev, err := f.s.List(f.ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		change func()
		want   []string
	}{
		{"first join", func() { join(t, f.peer, f.pss, el, "b") }, []string{f.pss.ID() + "=b"}},
		{"join", func() { join(t, f.s, f.ss, el, "a") }, []string{f.pss.ID() + "=b", f.ss.ID() + "=a"}},
		{"rewrite", func() { join(t, f.peer, f.pss, el, "b2") }, []string{f.pss.ID() + "=b2", f.ss.ID() + "=a"}},
		{"leave", func() { _ = f.ss.Leave(f.ctx, el) }, []string{f.pss.ID() + "=b2"}},
		{"session end", func() { _ = f.pss.Close(f.ctx) }, nil},
	}
	var revs []uint64
	for i, st := range steps {
		tag := uint64(i + 1)
		waitRoster(w, el, tag, recs, rev)
		awaitWatching(t, watching, el)
		st.change()
		got, grev := nextRoster(t, f, ch, el, tag)
		if !slices.Equal(entries(got), st.want) || grev <= rev {
			t.Fatalf("%s: roster = %v at %d; want %v above %d", st.name, entries(got), grev, st.want, rev)
		}
		recs, rev = got, grev
		revs = append(revs, rev)
	}
	waitRoster(w, el, 99, nil, revs[0])
	if got, grev := nextRoster(t, f, ch, el, 99); len(got) != 0 || grev < rev {
		t.Fatalf("roster request from the first join's revision: %v at %d; want none at once, at or above %d", owners(got), grev, rev)
	}
	if len(reads) == 0 {
		t.Fatal("no read of the set's was seen")
	}
	for len(reads) > 0 {
		if <-reads {
			t.Fatal("a read of WatchRoster requests only synced first")
		}
	}
}

// TestProclaim: the holder's Proclaim rewrites the value, keeping token
// and owner, and a WatchKey request on the old state sees it; a wrong token, another
// session, or a deleted key give ErrNotFound.
func TestProclaim(t *testing.T) {
	f := newWatchFixture(t)
	el := uniqueName("proclaim-")
	held := f.create(t, el)
	known := f.get(t, el)
	rec, err := f.pss.Proclaim(f.ctx, el, held.Token, []byte("news"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Token != held.Token || rec.Owner != held.Owner || string(rec.Value) != "news" || rec.Revision <= held.Revision {
		t.Fatalf("Proclaim = %+v, want token %d, owner %s, value news, a higher revision", rec, held.Token, held.Owner)
	}
	w, ch := watchOn(t, f.s)
	w.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: known})
	if c := nextChange(t, ch); c.Err != nil || c.Record.Token != held.Token || string(c.Record.Value) != "news" {
		t.Fatalf("WatchKey answer after Proclaim = %+v; want the token kept and value news", c)
	}
	if _, err := f.pss.Proclaim(f.ctx, el, held.Token+1, []byte("x")); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Proclaim at another token: %v, want ErrNotFound", err)
	}
	if _, err := f.ss.Proclaim(f.ctx, el, held.Token, []byte("x")); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Proclaim by another session: %v, want ErrNotFound", err)
	}
	if err := backendtest.Release(f.ctx, f.pss, el, held.Token); err != nil {
		t.Fatalf("Delete after Proclaim: %v", err)
	}
	if _, err := f.pss.Proclaim(f.ctx, el, held.Token, []byte("x")); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Proclaim of a deleted key: %v, want ErrNotFound", err)
	}
}
