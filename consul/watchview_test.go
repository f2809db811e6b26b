package consul

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/watchset"
)

// TestViewChanges: the Facts between two views are those of the keys
// written, created or deleted between them, passes first; a key the
// second view lists as the first did tells nothing. Views find keys in
// an unsorted list, and note when Consul's index goes back.
func TestViewChanges(t *testing.T) {
	s := &store{prefix: "p/"}
	held := &api.KVPair{Key: "p/a", Session: "s2", Value: []byte("v"), ModifyIndex: 5, CreateIndex: 5}
	entry := &api.KVPair{Key: "p/~queue/a/~s2", Session: "s2", ModifyIndex: 4, CreateIndex: 4}
	quiet := &api.KVPair{Key: "p/b", Session: "s1", ModifyIndex: 3, CreateIndex: 3}
	record := &api.KVPair{Key: "p/~roster/a/~s1", Session: "s1", ModifyIndex: 3, CreateIndex: 3}
	v := view{}.next(listing{pairs: api.KVPairs{quiet, entry, record}, index: 4})
	w := v.next(listing{pairs: api.KVPairs{held, entry, quiet}, index: 9})
	if got := touched(v, w); !slices.Equal(got, []string{"p/a", "p/~roster/a/~s1"}) {
		t.Fatalf("touched %q, want the created leader key and the deleted record", got)
	}
	var whats []watchset.What
	for _, f := range s.changes(v, w) {
		if f.Election != "a" || f.Revision == 0 {
			t.Errorf("fact %+v, want one of election a", f)
		}
		whats = append(whats, f.What)
	}
	want := []watchset.What{watchset.Passed, watchset.LeaderState, watchset.RosterDigest}
	if !slices.Equal(whats, want) {
		t.Fatalf("facts of kinds %v, want %v", whats, want)
	}
	if f := s.changes(v, w)[0]; f.Revision != 5 || f.Entry != 4 || f.Record.Owner != "s2" {
		t.Errorf("pass %+v, want at the key's index 5 to s2, whose entry is 4", f)
	}
	if back := w.next(listing{index: 3}); !back.back || back.seq != 3 || w.back {
		t.Errorf("index 9 then 3: back %v (before %v), seq %d; want back at the third", back.back, w.back, back.seq)
	}
}

// TestStreamRereadsLaterRequest: a request that knows a later state than
// the stream's view is read again in the next view, even if its key is
// not among those that differ between the two: the key was written and
// deleted between them, and its state differs from the request's.
func TestStreamRereadsLaterRequest(t *testing.T) {
	s := &store{prefix: "p/"}
	h := &hub{s: s}
	st := h.Open(context.Background()).(*stream)
	h.view = view{}.next(listing{index: 56})
	st.Next(struct{}{}, true)
	held := watchset.Request{Kind: watchset.Wait, Known: record("a", &api.KVPair{Key: "p/a", Session: "s1", ModifyIndex: 57}, 57)}
	if b := st.Read(context.Background(), []watchset.Request{held}); len(b.Facts) != 1 || b.Facts[0].Revision != 56 {
		t.Fatalf("read %+v, want the key's state at 56", b)
	}
	h.view = h.view.next(listing{index: 64}) // p/a was written and deleted meanwhile
	b := st.Next(struct{}{}, true)
	if len(b.Facts) != 1 || b.Facts[0].What != watchset.LeaderState || b.Facts[0].Revision != 64 || b.Facts[0].Record.Exists() {
		t.Fatalf("next %+v, want the key's state at 64, absent", b)
	}
}

// TestStreamKeepsRequestAheadOfView: a request that knows a later state
// than the stream's view stays armed through a next view that is still
// older than what it knows (a server that lagged, or an answer read
// before the request's write), and is read again in the first view that
// reaches it, though its key was written and deleted between the views.
// The fault soak lost such requests: a member's queue entries, made and
// then deleted with its old session while its query waited on a server
// cut off from its peers, were never reported gone, and its shards
// stayed without an owner until the group's next write.
func TestStreamKeepsRequestAheadOfView(t *testing.T) {
	s := &store{prefix: "p/"}
	h := &hub{s: s}
	st := h.Open(context.Background()).(*stream)
	h.view = view{}.next(listing{index: 56})
	st.Next(struct{}{}, true)
	gone := watchset.Request{Kind: watchset.Gone, Known: backends.Record{Election: "a", Owner: "s1", Token: 70, Revision: 70}}
	st.Read(context.Background(), []watchset.Request{gone})
	h.view = h.view.next(listing{index: 60}) // a lagging answer: the entry is yet to come
	st.Next(struct{}{}, true)
	// The entry is written at 70 and deleted at 75, between the views.
	h.view = h.view.next(listing{index: 80})
	b := st.Next(struct{}{}, true)
	for _, f := range b.Facts {
		if f.What == watchset.EntryState && f.Revision == 80 && f.Record.Owner == "s1" && f.Record.Token == 0 {
			return
		}
	}
	t.Fatalf("next %+v, want the entry's state at 80, absent", b)
}
