package watchset_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/watchset"
)

// trackSource is a Source whose one stream is a Tracker that tells its
// Track, Untrack and Read calls on calls, and no change. Its reads find
// each request's state as the request knows it, at revision readRev.
type trackSource struct{ calls chan string }

const readRev = 9

type trackStream struct{ calls chan string }

func (src trackSource) Open(context.Context) watchset.Stream[int] { return trackStream(src) }

func (st trackStream) Events() <-chan int            { return nil }
func (st trackStream) Next(int, bool) watchset.Batch { return watchset.Batch{} }
func (st trackStream) Want(bool)                     {}
func (st trackStream) Close()                        {}

func (st trackStream) Track(id uint64, r watchset.Request, from uint64) {
	st.calls <- fmt.Sprintf("track %s %d from %d", r.Known.Election, r.Tag, from)
}

func (st trackStream) Untrack(_ uint64, answered bool) {
	st.calls <- fmt.Sprintf("untrack answered=%t", answered)
}

func (st trackStream) Read(_ context.Context, reqs []watchset.Request) watchset.Batch {
	var b watchset.Batch
	for _, r := range reqs {
		st.calls <- fmt.Sprintf("read %s %d", r.Known.Election, r.Tag)
		what := watchset.LeaderState
		if r.Kind == watchset.Gone {
			what = watchset.EntryState
		}
		b.Facts = append(b.Facts, watchset.Fact{What: what, Election: r.Known.Election, Revision: readRev, Record: r.Known})
	}
	return b
}

// TestTracker: on a Tracker, a Wait that knows a revision is watched from
// it with no read; a Gone is read first and watched from the read's
// revision; a request replaced or withdrawn has its watches ended.
func TestTracker(t *testing.T) {
	calls := make(chan string, 16)
	set := watchset.New[int]("test", trackSource{calls}, func(backends.Change) {})
	t.Cleanup(func() { _ = set.Close() })
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: backends.Record{Election: "a", Revision: 5, Token: 3, Owner: "o"}})
	wantCalls(t, calls, "track a 1 from 5")
	set.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 2, Known: backends.Record{Election: "a", Revision: 6, Token: 4, Owner: "e"}})
	// The read runs on its own goroutine, so it may come before the untrack.
	wantUnordered(t, calls, "untrack answered=false", "read a 2")
	wantCalls(t, calls, "track a 2 from 9")
	set.Stop("a", backends.WatchEntry)
	wantCalls(t, calls, "untrack answered=false")
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 3, Known: backends.Record{Election: "b"}})
	wantCalls(t, calls, "read b 3", "track b 3 from 9")
}

// wantCalls fails t unless calls tells want, in order, each within 10s.
func wantCalls(t *testing.T, calls <-chan string, want ...string) {
	t.Helper()
	for _, w := range want {
		select {
		case got := <-calls:
			if got != w {
				t.Fatalf("call %q, want %q", got, w)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no call within 10s, want %q", w)
		}
	}
}

// wantUnordered fails t unless calls tells want, in any order, each
// within 10s.
func wantUnordered(t *testing.T, calls <-chan string, want ...string) {
	t.Helper()
	left := map[string]int{}
	for _, w := range want {
		left[w]++
	}
	for range want {
		select {
		case got := <-calls:
			if left[got] == 0 {
				t.Fatalf("call %q, want one of %q", got, want)
			}
			left[got]--
		case <-time.After(10 * time.Second):
			t.Fatalf("no call within 10s, want %q", want)
		}
	}
}
