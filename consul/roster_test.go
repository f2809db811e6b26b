package consul_test

import (
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
)

// Tests of the Roster against a real agent.

// owners returns the owners of recs in order.
func owners(recs []backends.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Owner)
	}
	return out
}

// testRosterRecords: records are the sessions' locked keys, listed in
// join order; a second Join replaces the value and keeps the Token;
// a WatchRoster request is answered at once for a change made after its
// revision, and within a round trip of a Leave or a session's end
// otherwise.
func testRosterRecords(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	s := newStore(t, c, consul.Options{})
	alice, bob := newSession(t, s), newSession(t, s)
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 30*time.Second)
	a, err := alice.Join(ctx, el, []byte("a1"))
	if err != nil || a.Owner != alice.ID() || a.Token == 0 || string(a.Value) != "a1" {
		t.Fatalf("Join = %+v, %v", a, err)
	}
	first, rev, err := s.List(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bob.Join(ctx, el, []byte("b1"))
	if err != nil || b.Token <= a.Token {
		t.Fatalf("second Join = %+v, %v; want a token above %d", b, err, a.Token)
	}
	recs, rev2, err := waitList(t, s, el, first, rev) // changed before the request
	if err != nil || rev2 <= rev || len(recs) != 2 || recs[0].Owner != alice.ID() || recs[1].Owner != bob.ID() {
		t.Fatalf("WaitList = %v, %d, %v; want alice then bob above %d", owners(recs), rev2, err, rev)
	}
	again, err := alice.Join(ctx, el, []byte("a2"))
	if err != nil || again.Token != a.Token || string(again.Value) != "a2" {
		t.Fatalf("Join again = %+v, %v; want token %d, value a2", again, err, a.Token)
	}
	recs, rev3, err := waitList(t, s, el, recs, rev2)
	if err != nil || len(recs) != 2 || recs[0].Token != a.Token || string(recs[0].Value) != "a2" {
		t.Fatalf("WaitList after the new value = %+v, %v", recs, err)
	}
	left := waitListAsync(t, s, el, recs, rev3)
	if err := alice.Leave(ctx, el); err != nil {
		t.Fatalf("Leave: %v", err)
	}
	if recs := <-left; len(recs) != 1 || recs[0].Owner != bob.ID() {
		t.Fatalf("WaitList after Leave = %v; want bob", owners(recs))
	}
	if err := alice.Leave(ctx, el); err != nil {
		t.Fatalf("Leave of a missing record: %v, want nil", err)
	}
	if err := bob.Leave(ctx, "other"); err != nil {
		t.Fatalf("Leave of another election: %v, want nil", err)
	}
	recs, rev4, err := s.List(ctx, el)
	if err != nil || len(recs) != 1 {
		t.Fatalf("List = %v, %v", owners(recs), err)
	}
	ended := waitListAsync(t, s, el, recs, rev4)
	if err := bob.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if recs := <-ended; len(recs) != 0 {
		t.Fatalf("WaitList after bob's session ended = %v; want none", owners(recs))
	}
}

// waitList makes a WatchRoster request from recs, read at rev, in a
// WatchSet of its own, and lists the roster again on its answer, failing
// t if none comes within 20 s.
func waitList(t *testing.T, s consul.Driver, el string, recs []backends.Record, rev uint64) ([]backends.Record, uint64, error) {
	t.Helper()
	ws, ch := watch(t, s)
	ws.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 1, Known: backends.Record{Election: el, Revision: rev},
		Digest: backends.RosterDigest(recs)})
	if c := ch.next(t); c.Err != nil {
		return nil, 0, c.Err
	}
	return s.List(backendtest.Context(t, 20*time.Second), el)
}

// waitListAsync runs waitList in a goroutine and sends its roster,
// failing t if it fails.
func waitListAsync(t *testing.T, s consul.Driver, el string, recs []backends.Record, rev uint64) <-chan []backends.Record {
	out := make(chan []backends.Record, 1)
	ws, ch := watch(t, s)
	ws.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 1, Known: backends.Record{Election: el, Revision: rev},
		Digest: backends.RosterDigest(recs)})
	go func() {
		select {
		case c := <-ch:
			if c.Err != nil {
				t.Errorf("WatchRoster answer: %v", c.Err)
				out <- nil
				return
			}
		case <-time.After(20 * time.Second):
			t.Errorf("WatchRoster request not answered within 20s")
			out <- nil
			return
		}
		recs, _, err := s.List(backendtest.Context(t, 20*time.Second), el)
		if err != nil {
			t.Errorf("List: %v", err)
		}
		out <- recs
	}()
	return out
}

// testRosterNested: the records of election "a/b" are not in the roster
// of "a", nor is a key under the prefix that no session holds.
func testRosterNested(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	s := newStore(t, c, consul.Options{})
	ss := newSession(t, s)
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 20*time.Second)
	if _, err := ss.Join(ctx, el+"/b", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.KV().Put(&api.KVPair{Key: consul.RosterKeyOf(s, el, "stray")}, nil); err != nil {
		t.Fatal(err)
	}
	if recs, _, err := s.List(ctx, el); err != nil || len(recs) != 0 {
		t.Fatalf("List of %q = %v, %v; want none", el, owners(recs), err)
	}
}
