// Package leasetest is the elector suite: it runs lease.LeaseElector
// against a real store through a backendtest.Harness. A new adapter gets
// the whole battery by calling RunElectorTests next to
// backendtest.RunConformanceTests.
package leasetest

import (
	"context"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// RunElectorTests runs the elector suite. base holds the options every
// elector starts from; its TTL should be the shortest the store allows, to
// keep the suite fast. Every test runs in base's wait mode (by default the
// ordered queue). The suite also runs the tests of each mode on its own: subtest Queue with
// lease.Options.Wait set to lease.WaitQueue, and subtest KeyMode with
// lease.WaitKey, each with candidates of the other mode in one election
// too.
func RunElectorTests(t *testing.T, h backendtest.Harness, base lease.Options) {
	s := &suite{h: h, base: base}
	tests := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"BadInput", s.testBadInput},
		{"Race", s.testRace},
		{"Busy", s.testBusy},
		{"ResignHandoff", s.testResignHandoff},
		{"CrashFailover", s.testCrashFailover},
		{"LeaderSessionExpires", s.testLeaderSessionExpires},
		{"WaiterSessionExpires", s.testWaiterSessionExpires},
		{"GiveUpReleases", s.testGiveUpReleases},
		{"Observe", s.testObserve},
		{"ObserveWhileCampaigning", s.testObserveWhileCampaigning},
		{"CampaignCanceled", s.testCampaignCanceled},
		{"Unreachable", s.testUnreachable},
		{"RunRecampaigns", s.testRunRecampaigns},
		{"RunAbnormalExit", s.testRunAbnormalExit},
		{"Valid", s.testValid},
		{"Sharded", s.testSharded},
		{"Goroutines", s.testGoroutines},
		{"Candidates", s.runCandidateTests},
		{"Proclaim", s.testProclaim},
		{"AwaitTarget", s.runAwaitTargetTests},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.fn)
	}
	t.Run("Policy", s.runPolicyTests)
	t.Run("Queue", s.with(lease.WaitQueue).runQueueTests)
	t.Run("KeyMode", s.with(lease.WaitKey).runKeyModeTests)
}

type suite struct {
	h    backendtest.Harness
	base lease.Options
}

// with returns the suite with base's wait mode set to mode.
func (s *suite) with(mode lease.WaitMode) *suite {
	base := s.base
	base.Wait = mode
	return &suite{h: s.h, base: base}
}

// elector returns an elector on its own connection, closed when t ends,
// and the function that severs its connection.
func (s *suite) elector(t *testing.T, identity string) (*lease.LeaseElector, func()) {
	t.Helper()
	return s.electorOpts(t, identity, s.base)
}

// electorOpts is elector with opts in place of the suite's base options.
func (s *suite) electorOpts(t *testing.T, identity string, opts lease.Options) (*lease.LeaseElector, func()) {
	t.Helper()
	store, sever := s.h.NewStore(t)
	opts.Identity = identity
	e, err := lease.New(store, opts)
	if err != nil {
		t.Fatalf("lease.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return e, sever
}

func (s *suite) opts(t *testing.T) lease.Options {
	e, _ := s.elector(t, "probe")
	return e.Options()
}

func campaign(t *testing.T, e *lease.LeaseElector, el string) *lease.Leadership {
	t.Helper()
	l, err := e.Campaign(backendtest.Context(t, 30*time.Second), el)
	if err != nil {
		t.Fatalf("%s: Campaign(%q): %v", e.Identity(), el, err)
	}
	return l
}

type won struct {
	l   *lease.Leadership
	err error
	at  time.Time
}

// campaignAsync campaigns in a goroutine and delivers the outcome.
func campaignAsync(t *testing.T, e *lease.LeaseElector, el string) <-chan won {
	ch := make(chan won, 1)
	ctx := backendtest.Context(t, 60*time.Second)
	go func() {
		l, err := e.Campaign(ctx, el)
		ch <- won{l, err, time.Now()}
	}()
	return ch
}

func awaitWin(t *testing.T, ch <-chan won, within time.Duration) won {
	t.Helper()
	select {
	case w := <-ch:
		if w.err != nil {
			t.Fatalf("Campaign: %v", w.err)
		}
		return w
	case <-time.After(within):
		t.Fatalf("no leader within %v", within)
	}
	return won{}
}

func awaitSession(t *testing.T, e *lease.LeaseElector) string {
	t.Helper()
	id, err := e.AwaitSession(backendtest.Context(t, 10*time.Second))
	if err != nil {
		t.Fatalf("AwaitSession: %v", err)
	}
	return id
}

func resign(t *testing.T, l *lease.Leadership) {
	t.Helper()
	if err := l.Resign(backendtest.Context(t, 10*time.Second)); err != nil {
		t.Fatalf("Resign: %v", err)
	}
}

// doneWithin waits for l to end and returns when it did.
func doneWithin(t *testing.T, l *lease.Leadership, within time.Duration) time.Time {
	t.Helper()
	select {
	case <-l.Context().Done():
		return time.Now()
	case <-time.After(within):
		t.Fatalf("leadership %q token %d still held after %v", l.Election, l.Token, within)
	}
	return time.Time{}
}
