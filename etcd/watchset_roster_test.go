package etcd_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd"
)

// TestWatchSetRosterSeenBeforeRequest: a roster request whose roster the
// set's stream saw change after the request's revision, before the
// request was made, is answered at once, with no later event on the
// prefix to carry the answer out. The set answered such a request while
// it prepared its next wait and delivered the answer only after the
// stream's next event: a leader that re-read its roster just before a
// candidate joined (and a handover request left) missed the candidate
// until some unrelated write, and its preemption went to the next below.
// The store has a prefix of its own, so no other test's writes come by.
func TestWatchSetRosterSeenBeforeRequest(t *testing.T) {
	ctx := backendtest.Context(t, time.Minute)
	prefix := "/" + strings.NewReplacer("/", "-").Replace(t.Name()) + "/"
	st, err := etcd.New(harness.Dial(t), etcd.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	s := etcd.DriverOf(st)
	ss, err := s.NewSession(ctx, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close(context.Background()) })
	ch := make(chan backends.Change, 8)
	set := s.Watch(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })
	join := func(el, v string) {
		t.Helper()
		if _, err := ss.Join(ctx, el, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	ask := func(tag uint64, el string) { // from the roster as it is now
		t.Helper()
		recs, rev, err := s.List(ctx, el)
		if err != nil {
			t.Fatal(err)
		}
		set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: tag, Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(recs)})
	}
	answered := func(tag uint64, el string, within time.Duration) {
		t.Helper()
		select {
		case c := <-ch:
			if !c.Roster || c.Tag != tag || c.Election != el || c.Err != nil {
				t.Fatalf("answer %+v, want the roster answer to %q's request %d", c, el, tag)
			}
		case <-time.After(within):
			t.Fatalf("no answer to %q's roster request %d within %v", el, tag, within)
		}
	}
	// The stream opens, and passes a change of its own.
	ask(1, "mark")
	join("mark", "a")
	answered(1, "mark", 20*time.Second)
	// The leader reads its roster; a candidate joins; the set sees that
	// (it has passed a later change, mark's) before the leader asks.
	known, rev, err := s.List(ctx, "el")
	if err != nil {
		t.Fatal(err)
	}
	ask(2, "mark")
	join("el", "b")
	join("mark", "a again")
	answered(2, "mark", 20*time.Second)
	set.Wait(backends.WatchRequest{Kind: backends.WatchRoster, Tag: 3, Known: backends.Record{Election: "el", Revision: rev}, Digest: backends.RosterDigest(known)})
	answered(3, "el", 5*time.Second)
}
