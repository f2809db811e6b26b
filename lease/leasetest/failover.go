package leasetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// testResignHandoff: a waiting candidate leads promptly after a resign;
// the times are logged.
func (s *suite) testResignHandoff(t *testing.T) {
	a, _ := s.elector(t, "alice")
	b, _ := s.elector(t, "bob")
	el := backendtest.Election(t)
	awaitSession(t, b)
	l := campaign(t, a, el)
	var took []time.Duration
	for range 10 {
		ch := campaignAsync(t, b, el)
		start := time.Now()
		resign(t, l)
		w := awaitWin(t, ch, 5*time.Second)
		took = append(took, w.at.Sub(start))
		if w.l.Token <= l.Token {
			t.Fatalf("token %d after %d", w.l.Token, l.Token)
		}
		l, a, b = w.l, b, a
	}
	slices.Sort(took)
	t.Logf("resign hand-off over %d: min %v median %v max %v", len(took), took[0], took[len(took)/2], took[len(took)-1])
	if limit := s.opts(t).TTL / 2; took[len(took)-1] > limit {
		t.Fatalf("slowest hand-off %v, want well below the TTL (%v)", took[len(took)-1], limit)
	}
}

// testCrashFailover: the leader's connection is cut without a resign. The
// leader stops acting before the successor starts, and the successor leads
// within TTL + one renewal interval of the cut.
func (s *suite) testCrashFailover(t *testing.T) {
	a, sever := s.elector(t, "alice")
	b, _ := s.elector(t, "bob")
	el := backendtest.Election(t)
	opts := s.opts(t)
	la := campaign(t, a, el)
	awaitSession(t, b)
	ch := campaignAsync(t, b, el)
	cut := time.Now()
	sever()
	limit := backendtest.ExpiryBound(s.h, opts.TTL) + opts.RenewInterval
	stopped := doneWithin(t, la, opts.TTL)
	w := awaitWin(t, ch, limit+5*time.Second)
	if !stopped.Before(w.l.Acquired) {
		t.Fatalf("old leader stopped at %v, after the successor started at %v",
			stopped.Sub(cut), w.l.Acquired.Sub(cut))
	}
	if d := w.at.Sub(cut); d > limit {
		t.Fatalf("successor after %v, want within TTL + expiry grace + renew interval = %v", d, limit)
	}
	if !errors.Is(la.Err(), lease.ErrLost) || w.l.Token <= la.Token {
		t.Fatalf("old leader's reason %v; tokens %d then %d", la.Err(), la.Token, w.l.Token)
	}
	t.Logf("crash: old leader stopped after %v (%v), successor after %v, TTL %v",
		stopped.Sub(cut), la.Err(), w.at.Sub(cut), opts.TTL)
}

// testLeaderSessionExpires: the store expires the leader's session; the
// leader learns within a renewal interval and a request timeout.
func (s *suite) testLeaderSessionExpires(t *testing.T) {
	a, _ := s.elector(t, "alice")
	el := backendtest.Election(t)
	opts := s.opts(t)
	l := campaign(t, a, el)
	start := time.Now()
	if err := s.h.ExpireSession(backendtest.Context(t, 10*time.Second), l.Session); err != nil {
		t.Fatal(err)
	}
	doneWithin(t, l, opts.RenewInterval+opts.RequestTimeout)
	if !errors.Is(l.Err(), lease.ErrLost) {
		t.Fatalf("reason %v, want ErrLost", l.Err())
	}
	t.Logf("leader learnt of its expired session after %v: %v", time.Since(start), l.Err())
	l2 := campaign(t, a, el)
	if l2.Session == l.Session || l2.Token <= l.Token {
		t.Fatalf("new term on session %s token %d, after session %s token %d", l2.Session, l2.Token, l.Session, l.Token)
	}
}

// testWaiterSessionExpires: a waiting candidate's session expires; it
// makes a new one, and the leadership it then wins is renewed past a TTL.
func (s *suite) testWaiterSessionExpires(t *testing.T) {
	a, _ := s.elector(t, "alice")
	b, _ := s.elector(t, "bob")
	el := backendtest.Election(t)
	opts := s.opts(t)
	la := campaign(t, a, el)
	old := awaitSession(t, b)
	ch := campaignAsync(t, b, el)
	if err := s.h.ExpireSession(backendtest.Context(t, 10*time.Second), old); err != nil {
		t.Fatal(err)
	}
	resign(t, la)
	w := awaitWin(t, ch, backendtest.ExpiryBound(s.h, opts.TTL)+opts.RenewInterval+5*time.Second)
	if w.l.Session == old {
		t.Fatalf("won on the expired session %s", old)
	}
	select {
	case <-w.l.Context().Done():
		t.Fatalf("leadership on the new session ended: %v", w.l.Err())
	case <-time.After(opts.TTL + opts.RenewInterval):
	}
	info, err := a.Leader(backendtest.Context(t, 10*time.Second), el)
	if err != nil || info.Token != w.l.Token || info.Session != w.l.Session {
		t.Fatalf("Leader = %+v, %v; want token %d session %s", info, err, w.l.Token, w.l.Session)
	}
}
