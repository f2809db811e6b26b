package lease

import (
	"context"
	"testing"
	"time"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/keys"
)

// TestElectionsDropped: the elector keeps one entry per election while
// anything of it is in flight or held, and drops it once nothing is,
// however the election ended here: resigned, handed over, lost, a
// campaign abandoned, a RequestHandover returned. A held election's entry
// holds its leadership and no waiting call.
func TestElectionsDropped(t *testing.T) {
	store, cli := embeddedStoreClient(t)
	// Each ends first's leadership l of el, while next waits to campaign
	// with a ctx that abandon ends.
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, ctx context.Context, l *Leadership, abandon func(), asker *LeaseElector)
	}{
		{"resign", func(t *testing.T, ctx context.Context, l *Leadership, _ func(), _ *LeaseElector) {
			if err := l.Resign(ctx); err != nil {
				t.Fatal(err)
			}
		}},
		{"handover", func(t *testing.T, ctx context.Context, l *Leadership, _ func(), _ *LeaseElector) {
			if err := l.HandOver(ctx, "next"); err != nil {
				t.Fatal(err)
			}
		}},
		{"lost", func(t *testing.T, ctx context.Context, l *Leadership, _ func(), _ *LeaseElector) {
			if _, err := cli.Delete(ctx, keys.Leader(etcd.DefaultPrefix, l.Election)); err != nil {
				t.Fatal(err)
			}
			select {
			case <-l.Context().Done():
			case <-ctx.Done():
				t.Fatal("the leadership did not end when its key was deleted")
			}
		}},
		{"request", func(t *testing.T, ctx context.Context, l *Leadership, _ func(), asker *LeaseElector) {
			if _, err := asker.RequestHandover(ctx, l.Election, ""); err != nil {
				t.Fatal(err)
			}
		}},
		{"abandon", func(t *testing.T, ctx context.Context, l *Leadership, abandon func(), _ *LeaseElector) {
			abandon()
			if err := l.Resign(ctx); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			first, next, asker := elector(t, store, "first"), elector(t, store, "next"), elector(t, store, "asker")
			el := "dropped-" + tc.name
			l, err := first.Campaign(ctx, el)
			if err != nil {
				t.Fatal(err)
			}
			assertHeld(t, first, l)
			won := make(chan *Leadership, 1)
			wctx, abandon := context.WithCancel(ctx)
			defer abandon()
			go func() {
				l, _ := next.Campaign(wctx, el)
				won <- l
			}()
			rosterOf(t, ctx, store, el, 2)
			tc.end(t, ctx, l, abandon, asker)
			awaitIdle(t, ctx, first)
			awaitIdle(t, ctx, asker)
			if l := <-won; l != nil {
				if err := l.Resign(ctx); err != nil {
					t.Fatal(err)
				}
			}
			awaitIdle(t, ctx, next)
		})
	}
}

// assertHeld fails t unless e's entry of l's election holds l and no
// waiting call.
func assertHeld(t *testing.T, e *LeaseElector, l *Leadership) {
	t.Helper()
	var held *Leadership
	var calls *userCalls
	e.do(func(time.Time) {
		if el := e.at(l.Election); el != nil {
			held, calls = el.held, el.calls
		}
	})
	if held != l || calls != nil {
		t.Fatalf("entry of held %q: leadership %p (want %p), calls %+v (want none)", l.Election, held, l, calls)
	}
}

// awaitIdle waits until e has no entry for any election.
func awaitIdle(t *testing.T, ctx context.Context, e *LeaseElector) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		var left map[string]election
		e.do(func(time.Time) {
			left = map[string]election{}
			for name, el := range e.elections {
				left[name] = *el
			}
		})
		if len(left) == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("%s keeps entries with nothing in flight: %+v", e.opts.Identity, left)
		}
	}
}
