package etcd_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/etcd"
)

// TestWatchSetCompacted: a request whose watch is made again after a cut
// from a revision since compacted is read, not ended: it waits, and is
// answered with the key's next change; a request that knows a compacted
// revision is read too, and answered with the key's state. With a watch
// of the prefix each ended with ErrCompacted.
func TestWatchSetCompacted(t *testing.T) {
	st, link := harness.Connect(t)
	s := etcd.DriverOf(st)
	other, _ := newDriver(t)
	c := harness.Dial(t)
	ctx := backendtest.Context(t, time.Minute)
	el := backendtest.Election(t)
	ch := make(chan backends.Change, 4)
	set := s.Watch(func(c backends.Change) { ch <- c })
	t.Cleanup(func() { _ = set.Close() })
	before, err := other.Get(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := other.NewSession(ctx, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close(context.Background()) })
	rec, err := ss.Create(ctx, el, []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: before}) // answered: the stream is up
	if got := next(t, ch); got.Err != nil || got.Tag != 1 || got.Record.Token != rec.Token {
		t.Fatalf("answer = %+v, want tag 1 with %+v", got, rec)
	}
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 2, Known: rec})
	link.Sever()
	compact(t, c)
	link.Heal()
	if err := backendtest.Release(ctx, ss, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	if got := next(t, ch); got.Err != nil || got.Tag != 2 || got.Record.Exists() {
		t.Fatalf("answer after compaction and release = %+v, want tag 2 with the key absent", got)
	}
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 3, Known: rec})
	if got := next(t, ch); got.Err != nil || got.Tag != 3 || got.Record.Exists() {
		t.Fatalf("answer from a compacted revision = %+v, want tag 3 with the key absent", got)
	}
}

// compact moves the store two revisions on and compacts it there.
func compact(t *testing.T, c *clientv3.Client) {
	ctx := backendtest.Context(t, 10*time.Second)
	var rev int64
	for range 2 {
		resp, err := c.Put(ctx, "/compact-me", "x")
		if err != nil {
			t.Fatal(err)
		}
		rev = resp.Header.Revision
	}
	if _, err := c.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
}

// next returns the next answer, within 20 s.
func next(t *testing.T, ch <-chan backends.Change) backends.Change {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(20 * time.Second):
		t.Fatal("no answer within 20s")
	}
	return backends.Change{}
}

// TestWatchSetConcurrentUse makes, replaces and stops requests from
// several goroutines and from deliver while their keys change, for the
// race detector; every answer must be to a tag asked for its election.
func TestWatchSetConcurrentUse(t *testing.T) {
	s, _ := newDriver(t)
	ctx := backendtest.Context(t, time.Minute)
	base := backendtest.Election(t)
	els := make([]string, 20)
	for i := range els {
		els[i] = fmt.Sprintf("%s-%d", base, i)
	}
	var asked sync.Map // tag → election
	var tags atomic.Uint64
	var set backends.WatchSet
	bad := make(chan backends.Change, 1)
	var answers atomic.Int64
	set = s.Watch(func(c backends.Change) {
		answers.Add(1)
		if el, ok := asked.Load(c.Tag); !ok || el != c.Election {
			select {
			case bad <- c:
			default:
			}
		}
		if c.Err == nil && c.Tag%2 == 0 {
			tag := tags.Add(1)
			asked.Store(tag, c.Election)
			set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: tag, Known: c.Record})
		}
	})
	known, err := s.Get(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				el := els[(g*7+i)%len(els)]
				if i%5 == 4 {
					set.Stop(el, backends.WatchKey)
					continue
				}
				tag := tags.Add(1)
				asked.Store(tag, el)
				set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: tag, Known: backends.Record{Election: el, Revision: known.Revision}})
			}
		}()
	}
	churn(t, s, els)
	wg.Wait()
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-bad:
		t.Fatalf("answer %+v to a tag not asked for its election", c)
	default:
	}
	if answers.Load() == 0 {
		t.Fatal("no answer while every key was created and deleted")
	}
	t.Logf("%d answers", answers.Load())
}

// churn creates and deletes the leader key of each of els once.
func churn(t *testing.T, s backends.Driver, els []string) {
	ctx := backendtest.Context(t, time.Minute)
	ss, err := s.NewSession(ctx, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close(context.Background())
	for _, el := range els {
		rec, err := ss.Create(ctx, el, []byte("v"))
		if err != nil {
			t.Fatal(err)
		}
		if err := backendtest.Release(ctx, ss, el, rec.Token); err != nil {
			t.Fatal(err)
		}
	}
}
