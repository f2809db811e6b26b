package leasetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/lease"
)

// testRunRecampaigns: Run's fn is cancelled when the session is lost, Run
// campaigns again and fn runs again with a higher token; cancelling Run's
// context resigns. fn never runs twice at once.
func (s *suite) testRunRecampaigns(t *testing.T) {
	e, _ := s.elector(t, "runner")
	el := backendtest.Election(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	terms := make(chan *lease.Leadership)
	var mu sync.Mutex
	running, overlap := 0, false
	done := make(chan error, 1)
	go func() {
		done <- e.Run(ctx, el, func(ctx context.Context, l *lease.Leadership) error {
			mu.Lock()
			running++
			overlap = overlap || running > 1
			mu.Unlock()
			defer func() { mu.Lock(); running--; mu.Unlock() }()
			terms <- l
			<-ctx.Done()
			return nil
		})
	}()
	next := func() *lease.Leadership {
		t.Helper()
		select {
		case l := <-terms:
			return l
		case err := <-done:
			t.Fatalf("Run returned early: %v", err)
		case <-time.After(20 * time.Second):
			t.Fatal("Run's fn did not start within 20s")
		}
		return nil
	}
	first := next()
	if err := s.h.ExpireSession(backendtest.Context(t, 10*time.Second), first.Session); err != nil {
		t.Fatal(err)
	}
	second := next()
	if second.Token <= first.Token || first.Err() == nil {
		t.Fatalf("second term token %d after %d (first ended: %v)", second.Token, first.Token, first.Err())
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its context's end")
	}
	if overlap || !errors.Is(second.Err(), lease.ErrResigned) {
		t.Fatalf("overlap %v; second term ended with %v, want ErrResigned", overlap, second.Err())
	}
	if _, err := e.Leader(backendtest.Context(t, 10*time.Second), el); !errors.Is(err, lease.ErrNoLeader) {
		t.Fatalf("after Run ended, Leader: %v, want ErrNoLeader", err)
	}
}

// testSharded: one elector leads 1,000 elections over one session; Close
// releases them all.
func (s *suite) testSharded(t *testing.T) {
	const n = 1000
	e, _ := s.elector(t, "shard-owner")
	o, _ := s.elector(t, "observer")
	base := backendtest.Election(t)
	ls := make([]*lease.Leadership, n)
	errs := make([]error, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ls[i], errs[i] = e.Campaign(backendtest.Context(t, 60*time.Second), fmt.Sprintf("%s/%d", base, i))
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	sessions := map[string]bool{}
	tokens := map[fencing.Token]bool{}
	for _, l := range ls {
		sessions[l.Session], tokens[l.Token] = true, true
	}
	if len(sessions) != 1 || len(tokens) != n {
		t.Fatalf("%d elections on %d sessions (%v) with %d distinct tokens, want 1 session, %d tokens", n, len(sessions), sessions, len(tokens), n)
	}
	t.Logf("acquired %d elections on one session in %v", n, took)
	ctx := backendtest.Context(t, 30*time.Second)
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		if !errors.Is(ls[i].Err(), lease.ErrClosed) {
			t.Fatalf("election %d after Close: %v, want ErrClosed", i, ls[i].Err())
		}
		if _, err := o.Leader(ctx, ls[i].Election); !errors.Is(err, lease.ErrNoLeader) {
			t.Fatalf("election %d after Close: Leader %v, want ErrNoLeader", i, err)
		}
	}
}
