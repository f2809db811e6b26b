package leasetest

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// testRunAbnormalExit: when Run's fn panics, Run lets the key go and
// re-panics with the same value; when fn calls runtime.Goexit (as
// t.FailNow does), Run lets the key go too. Either way a waiting
// candidate leads within a hand-off, far below the TTL, and the election
// is free again on the elector that ran fn: a new Campaign of it is not
// ErrBusy.
func (s *suite) testRunAbnormalExit(t *testing.T) {
	type failure struct{ msg string }
	value := &failure{"fn failed"}
	t.Run("Panic", func(t *testing.T) {
		r := s.runExit(t, func() { panic(value) })
		if r.returned || r.recovered != value {
			t.Fatalf("Run returned %v, recovered %v; want the panic value %v re-panicked", r.returned, r.recovered, value)
		}
	})
	t.Run("Goexit", func(t *testing.T) {
		r := s.runExit(t, runtime.Goexit)
		if r.returned || r.recovered != nil {
			t.Fatalf("Run returned %v, recovered %v; want the goroutine to exit", r.returned, r.recovered)
		}
	})
}

// exitReport is how a goroutine calling Run ended.
type exitReport struct {
	returned  bool // Run returned
	recovered any  // the panic value recovered around Run
}

// runExit runs, on a long TTL, an elector A whose Run's fn calls exit
// while an elector B campaigns for the same election. It fails t unless B
// leads within a third of the TTL of fn's exit, and A can then campaign
// again. It returns how A's goroutine ended.
func (s *suite) runExit(t *testing.T, exit func()) exitReport {
	opts := s.longTTL(t)
	within := opts.TTL / 3
	a, _ := s.electorOpts(t, "exits", opts)
	b, _ := s.electorOpts(t, "successor", opts)
	el := backendtest.Election(t)
	started, proceed := make(chan struct{}), make(chan struct{})
	out := make(chan exitReport, 1)
	go func() {
		var r exitReport
		defer func() { r.recovered = recover(); out <- r }() // also on Goexit
		_ = a.Run(backendtest.Context(t, 2*opts.TTL), el, func(_ context.Context, _ *lease.Leadership) error {
			close(started)
			<-proceed
			exit()
			return nil
		})
		r.returned = true
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("Run's fn did not start within 20s")
	}
	bWins := campaignAsync(t, b, el)
	exited := time.Now()
	close(proceed)
	r := <-out
	w := awaitWin(t, bWins, within)
	t.Logf("TTL %v: the successor led %v after fn's exit", opts.TTL, w.at.Sub(exited).Round(time.Millisecond))
	aWins := campaignAsync(t, a, el)
	resign(t, w.l)
	awaitWin(t, aWins, within)
	return r
}

// longTTL returns the suite's base options with a TTL of 30s, or the
// store's longest if that is shorter, so that a release by TTL cannot pass
// for a hand-off.
func (s *suite) longTTL(t *testing.T) lease.Options {
	store, _ := s.h.NewStore(t)
	lim := store.Limits()
	ttl := 30 * time.Second
	if lim.MaxTTL > 0 {
		ttl = min(ttl, lim.MaxTTL)
	}
	if g := lim.TTLGranularity; g > 0 {
		ttl -= ttl % g
	}
	o := s.base
	o.TTL = max(ttl, lim.MinTTL)
	return o
}
