package etcd_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"

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
		rosterAnswered(t, ch, tag, el, within)
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

// TestWatchSetRosterOneWatch: a set's roster requests share one watch, of
// every roster, not one each: a set that follows the rosters of 1,000
// elections, as a leader of 1,000 shards does, sends a handful of watch
// creates, and answers a change of any one roster, and no other, at once;
// a request asked again from the new roster rides the same watch. With a
// watch per request it sent 1,000 creates.
func TestWatchSetRosterOneWatch(t *testing.T) {
	const n, most = 1000, 4
	ctx := backendtest.Context(t, 2*time.Minute)
	creates := new(atomic.Int64)
	s, ss := countedStore(t, creates)
	ch := make(chan backends.Change, 8)
	set := s.Watch(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })
	_, rev, err := s.List(ctx, "el-0")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n { // every roster is empty at rev
		set.Wait(rosterRequest(uint64(i), fmt.Sprintf("el-%d", i), rev, nil))
	}
	for round := range 2 {
		for _, i := range []int{n - 1, n / 2, 0} {
			el, tag := fmt.Sprintf("el-%d", i), uint64(round*n+i)
			joined := join(t, ss, el, fmt.Sprint(round))
			took := rosterAnswered(t, ch, tag, el, time.Second)
			t.Logf("%s's roster change answered %v after its join returned (join: %v)", el, took, joined)
			recs, rev, err := s.List(ctx, el) // asked again, from the roster as it is now
			if err != nil {
				t.Fatal(err)
			}
			set.Wait(rosterRequest(uint64((round+1)*n+i), el, rev, recs))
		}
	}
	if got := creates.Load(); got > most {
		t.Errorf("%d roster requests sent %d watch creates, want at most %d", n, got, most)
	}
	t.Logf("%d roster requests: %d watch creates", n, creates.Load())
}

// TestWatchSetRosterCompacted: roster requests whose watch starts at a
// compacted revision are each read, and answered with their change, and
// cost the one roster watch, made again at the current revision: two
// creates, not two per request.
func TestWatchSetRosterCompacted(t *testing.T) {
	const n = 3
	ctx := backendtest.Context(t, time.Minute)
	creates := new(atomic.Int64)
	s, ss := countedStore(t, creates)
	_, rev, err := s.List(ctx, "el-0")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		join(t, ss, fmt.Sprintf("el-%d", i), "a")
	}
	compact(t, harness.Dial(t))
	ch := make(chan backends.Change, 8)
	set := s.Watch(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })
	for i := range n { // from rev, compacted: each roster changed since
		set.Wait(rosterRequest(uint64(i), fmt.Sprintf("el-%d", i), rev, nil))
	}
	got := map[string]bool{}
	for range n {
		c := next(t, ch)
		if !c.Roster || c.Err != nil || c.Election != fmt.Sprintf("el-%d", c.Tag) || got[c.Election] {
			t.Fatalf("answer %+v, want one roster answer to each of el-0 … el-%d", c, n-1)
		}
		got[c.Election] = true
	}
	if got := creates.Load(); got > 2 {
		t.Errorf("%d roster requests from a compacted revision sent %d watch creates, want at most 2", n, got)
	}
}

// TestWatchSetRosterBeforeWatch: a roster request from a revision before
// the one the set's roster watch starts at, a change of its roster in
// between, is answered with that change: it is watched on its own, from
// its revision, not on the roster watch, which would miss it.
func TestWatchSetRosterBeforeWatch(t *testing.T) {
	ctx := backendtest.Context(t, time.Minute)
	s, ss := countedStore(t, new(atomic.Int64))
	_, early, err := s.List(ctx, "early")
	if err != nil {
		t.Fatal(err)
	}
	join(t, ss, "early", "a")
	_, late, err := s.List(ctx, "late")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan backends.Change, 8)
	set := s.Watch(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })
	set.Wait(rosterRequest(1, "late", late, nil)) // opens the roster watch from late+1
	set.Wait(rosterRequest(2, "early", early, nil))
	rosterAnswered(t, ch, 2, "early", 20*time.Second)
}

// countedStore returns the driver of a Store with a prefix of its own, on
// a client of its own that adds to creates each watch create it sends,
// and a session of it.
func countedStore(t *testing.T, creates *atomic.Int64) (etcd.Driver, backends.Session) {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: harness.Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithChainStreamInterceptor(countWatch(nil, creates))}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	prefix := "/" + strings.NewReplacer("/", "-").Replace(t.Name()) + "/"
	st, err := etcd.New(c, etcd.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	s := etcd.DriverOf(st)
	ss, err := s.NewSession(backendtest.Context(t, 10*time.Second), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close(context.Background()) })
	return s, ss
}

// rosterRequest returns a roster request of el that knows recs, read at
// rev.
func rosterRequest(tag uint64, el string, rev uint64, recs []backends.Record) backends.WatchRequest {
	return backends.WatchRequest{Kind: backends.WatchRoster, Tag: tag, Known: backends.Record{Election: el, Revision: rev}, Digest: backends.RosterDigest(recs)}
}

// join writes ss's record in el's roster, and returns how long that took.
func join(t *testing.T, ss backends.Session, el, v string) time.Duration {
	t.Helper()
	start := time.Now()
	if _, err := ss.Join(backendtest.Context(t, 10*time.Second), el, []byte(v)); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// rosterAnswered fails t unless the next answer on ch, within within, is
// the roster answer to el's request tag; it returns how long it took.
func rosterAnswered(t *testing.T, ch <-chan backends.Change, tag uint64, el string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case c := <-ch:
		if !c.Roster || c.Tag != tag || c.Election != el || c.Err != nil {
			t.Fatalf("answer %+v, want the roster answer to %q's request %d", c, el, tag)
		}
	case <-time.After(within):
		t.Fatalf("no answer to %q's roster request %d within %v", el, tag, within)
	}
	return time.Since(start)
}

// TestWatchSetRosterReopened: a roster change made while the set's
// connection is cut answers its request once the connection is back:
// the roster watch is made again from where it was.
func TestWatchSetRosterReopened(t *testing.T) {
	ctx := backendtest.Context(t, time.Minute)
	st, link := harness.Connect(t)
	s := etcd.DriverOf(st)
	other, _ := newDriver(t)
	ss, err := other.NewSession(ctx, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close(context.Background()) })
	mark, el := backendtest.Election(t), backendtest.Election(t)+"-el"
	ch := make(chan backends.Change, 8)
	set := s.Watch(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })
	ask := func(tag uint64, el string) {
		t.Helper()
		recs, rev, err := s.List(ctx, el)
		if err != nil {
			t.Fatal(err)
		}
		set.Wait(rosterRequest(tag, el, rev, recs))
	}
	ask(1, el)
	ask(2, mark)
	join(t, ss, mark, "a") // answered once both are watched
	rosterAnswered(t, ch, 2, mark, 20*time.Second)
	link.Sever()
	join(t, ss, el, "a")
	link.Heal()
	rosterAnswered(t, ch, 1, el, 20*time.Second)
}
