package leasetest

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// giveUpDrift is the old leader's ClockDrift in testGiveUpReleases.
const giveUpDrift = 0.4

// testGiveUpReleases: the store's answers to the leader slow down past
// Options.LatencyBound while its session still works. The leader gives up
// at its deadline and releases the key SafetyMargin later: not sooner, so
// that its work has the margin to stop before anyone else leads, and not
// when the store would expire the old session. The leader allows a clock
// drift of 40%, so that the store keeps the session at least
// SafetyMargin + ClockDrift×TTL after the give-up (1.3 s at a TTL of 2 s,
// SafetyMargin 0.5 s; much more where the store extends sessions on its
// own): a successor that leads before then led by the release. Time is
// bounded by that claim alone, not by how fast the release goes, which the
// machine's load decides.
func (s *suite) testGiveUpReleases(t *testing.T) {
	c, ok := s.h.(backendtest.Connector)
	if !ok {
		t.Skip("the harness has no Connect: its links cannot be slowed")
	}
	store, link := c.Connect(t)
	opts := s.base
	opts.Identity = "slow"
	opts.ClockDrift = giveUpDrift
	a, err := lease.New(store, opts)
	if err != nil {
		t.Fatalf("lease.New: %v", err)
	}
	t.Cleanup(func() { link.SetLatency(0); _ = a.Close(backendtest.Context(t, 10*time.Second)) })
	b, _ := s.elector(t, "bob")
	el := backendtest.Election(t)
	o := a.Options()
	la := campaign(t, a, el)
	awaitSession(t, b)
	ch := campaignAsync(t, b, el)
	slowed := time.Now()
	link.SetLatency(o.LatencyBound() * 3 / 2)
	stopped := doneWithin(t, la, o.TTL)
	link.SetLatency(0)
	expiry := o.SafetyMargin + time.Duration(o.ClockDrift*float64(o.TTL))
	w := awaitWin(t, ch, expiry+5*time.Second)
	if !errors.Is(la.Err(), lease.ErrLost) || w.l.Token <= la.Token {
		t.Fatalf("old leader's reason %v; tokens %d then %d", la.Err(), la.Token, w.l.Token)
	}
	if !stopped.Before(w.l.Acquired) {
		t.Fatalf("old leader stopped at %v, after the successor started at %v",
			stopped.Sub(slowed), w.l.Acquired.Sub(slowed))
	}
	// stopped is when this goroutine saw the context end, a little after
	// it ended: allow it a tenth of the margin.
	if d := w.l.Acquired.Sub(stopped); d < o.SafetyMargin*9/10 {
		t.Fatalf("successor started %v after the old leader gave up, want no sooner than SafetyMargin %v", d, o.SafetyMargin)
	}
	if d := w.at.Sub(stopped); d >= expiry {
		t.Fatalf("successor %v after the old leader gave up, want before the store could expire its session, "+
			"SafetyMargin + ClockDrift×TTL = %v after it", d, expiry)
	}
	t.Logf("latency %v from %v on: leader gave up after %v (%v), successor %v later",
		o.LatencyBound()*3/2, slowed.Format("15:04:05.000"), stopped.Sub(slowed), la.Err(), w.at.Sub(stopped))
}
