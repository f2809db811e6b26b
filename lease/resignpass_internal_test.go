package lease

import (
	"context"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/keys"
)

// TestResignPasses: on etcd, which passes keys (backends.Capabilities.Passes), a
// leader that read its roster when it won resigns by passing the key to
// the next in line in one write, with equal priorities too: the key's
// next write is a put onto the successor's lease, not a delete, and the
// successor leads with the revision of that write as its token, with no
// create of its own.
func TestResignPasses(t *testing.T) {
	store, cli := embeddedStoreClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const el = "resign-passes"
	a, b, c := elector(t, store, "a"), elector(t, store, "b"), elector(t, store, "c")
	la, err := a.Campaign(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	wins := make(chan *Leadership, 2)
	for i, e := range []*LeaseElector{b, c} {
		go func() {
			if l, err := e.Campaign(ctx, el); err == nil {
				wins <- l
			}
		}()
		rosterOf(t, ctx, store, el, 2+i) // b joins before c
	}
	if err := la.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	lb := nextWin(t, ctx, wins, "after a resigned") // b joined first: next in line, whichever way a gave the key up
	if lb.e != b {
		t.Fatalf("after a resigned, %s leads, want b", lb.e.opts.Identity)
	}
	awaitSuccessors(t, ctx, b, el)
	watch := cli.Watch(ctx, keys.Leader(etcd.DefaultPrefix, el), clientv3.WithRev(int64(lb.Token)+1))
	if err := lb.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	lc := nextWin(t, ctx, wins, "after b resigned")
	select {
	case resp := <-watch:
		if err := resp.Err(); err != nil || len(resp.Events) == 0 {
			t.Fatalf("watch of the key after b resigned: %v, %d events", err, len(resp.Events))
		}
		ev := resp.Events[0]
		if ev.Type != clientv3.EventTypePut || strconv.FormatInt(ev.Kv.Lease, 16) != lc.Session {
			t.Fatalf("b's resign wrote %v on lease %x, want a put onto c's lease %s", ev.Type, ev.Kv.Lease, lc.Session)
		}
		if uint64(lc.Token) != uint64(ev.Kv.ModRevision) || lc.Token <= lb.Token {
			t.Fatalf("c leads with token %d, want the pass's revision %d, above b's %d", lc.Token, ev.Kv.ModRevision, lb.Token)
		}
	case <-ctx.Done():
		t.Fatal("no write of the key after b resigned")
	}
}

// nextWin returns the next leadership won on wins, failing t if none
// comes before ctx ends.
func nextWin(t *testing.T, ctx context.Context, wins <-chan *Leadership, what string) *Leadership {
	t.Helper()
	select {
	case l := <-wins:
		return l
	case <-ctx.Done():
		t.Fatalf("no one led %s", what)
	}
	return nil
}

// awaitSuccessors waits until e's core, leading election, has a roster
// with a candidate to hand over to: the read a leader makes when it wins
// (readSuccessors) has landed.
func awaitSuccessors(t *testing.T, ctx context.Context, e *LeaseElector, election string) {
	t.Helper()
	awaitTarget(t, ctx, e, election, "")
}

// awaitTarget waits until e's core, leading election, has a roster in
// which HandOver(to) finds a candidate: the roster it follows, or read
// when it won, has caught up with the store (a notification behind a
// fresh List).
func awaitTarget(t *testing.T, ctx context.Context, e *LeaseElector, election, to string) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		var ok bool
		e.do(func(time.Time) { ok = e.m.HasTarget(election, to) })
		if ok {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("%s's roster of %q never reached its core with a target %q", e.opts.Identity, election, to)
		}
	}
}
