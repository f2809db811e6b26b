package leasetest

import (
	"slices"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// RosterRefuser is an optional interface of an AuthHarness whose store
// can refuse a principal the rosters alone (backends.RosterSegment).
type RosterRefuser interface {
	// NoRoster returns a Store with every right the elector needs except
	// those on the rosters, on a connection of its own closed when t
	// ends: it campaigns and leads, but its roster reads and writes are
	// refused with an error wrapping backends.ErrPermission.
	NoRoster(t testing.TB) *backends.Store
}

// testRosterRefused: "next" leads before "blind" (after a term of
// blind's own, whose nodes blind may read), so the roster is made by a
// principal with every right; blind, leading after it, whose store refuses
// it the roster (a campaign in key mode, its Join refused), cannot read
// that roster, so it follows none, and AwaitTarget falls back to an
// observer of its own, which the store refuses too. With next waiting
// and listed for others, AwaitTarget must return that refusal (an error
// wrapping backends.ErrPermission) within 2×RequestTimeout, not hang nor
// return an error that names no cause; the leadership goes on.
func (s *authSuite) testRosterRefused(t *testing.T, r RosterRefuser) {
	el := backendtest.Election(t)
	opts := s.base
	opts.Identity, opts.Wait = "blind", lease.WaitKey
	blind, err := lease.New(r.NoRoster(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = blind.Close(backendtest.Context(t, 10*time.Second)) })
	next := s.elector(t, s.h.Holder(t), "next")
	resign(t, campaign(t, blind, el)) // so that blind may create its nodes in el
	ln := campaign(t, next, el)
	won := campaignAsync(t, blind, el)
	resign(t, ln)
	l := awaitWin(t, won, 10*time.Second).l
	campaignAsync(t, next, el)
	awaitCandidates(t, next, el, 10*time.Second, func(cs []lease.Candidate) bool {
		return slices.ContainsFunc(cs, func(c lease.Candidate) bool { return c.Identity == "next" && !c.Leader })
	})
	start := time.Now()
	wantPermission(t, "AwaitTarget with next listed", l.AwaitTarget(s.bound(t, blind), "next"))
	took := time.Since(start)
	if err := l.Err(); err != nil {
		t.Fatalf("the leadership ended: %v", err)
	}
	t.Logf("AwaitTarget with the roster refused returned after %v", took)
}
