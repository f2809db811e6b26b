package leasetest

import (
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// testHandOverLeaderCut: the leader's link is cut as its handover begins
// (as it logs the Yield, before the write that hands the key over goes
// out), so the key is never handed over: it expires with the leader's
// session, and the target leads by an ordinary campaign. HandOver must
// say so with an error wrapping ErrLost and ErrNotHandedOver, not return
// nil as if the key had been handed over.
func (s *suite) testHandOverLeaderCut(t *testing.T) {
	var sever func()
	s.handOverFails(t, "leader cut", func(string) { sever() }, func(sv func()) { sever = sv })
}

// testHandOverTargetExpired: the target's session is expired as the
// leader's handover begins, so the write that would hand the key over
// (the pass) finds the target gone: the key is released plainly, and the target leads,
// on a new session, by an ordinary campaign. HandOver must say so with
// an error wrapping ErrLost and ErrNotHandedOver.
func (s *suite) testHandOverTargetExpired(t *testing.T) {
	s.handOverFails(t, "target expired", func(session string) {
		if err := s.h.ExpireSession(backendtest.Context(t, 10*time.Second), session); err != nil {
			t.Errorf("ExpireSession(%s): %v", session, err)
		}
	}, nil)
}

// handOverFails runs a handover from a leader to a waiting target in
// which fault(the target's session) runs as the leader yields, and
// checks that HandOver fails with ErrLost and ErrNotHandedOver and that
// the target then leads by campaign. link, if not nil, is given the
// function that severs the leader's link.
func (s *suite) handOverFails(t *testing.T, what string, fault func(target string), link func(sever func())) {
	opts := s.opts(t)
	el := backendtest.Election(t)
	hook := newOnYield(el)
	leader, sever := s.policyElector(t, "leader", func(o *lease.Options) { o.Logger = slog.New(&hook.log) })
	if link != nil {
		link(sever)
	}
	target, _ := s.policyElector(t, "target", nil)
	l := campaign(t, leader, el)
	session := awaitSession(t, target)
	ch := campaignAsync(t, target, el)
	awaitCandidates(t, leader, el, 10*time.Second, waiting(1))
	hook.do = func() { fault(session) }
	start := time.Now()
	err := l.HandOver(backendtest.Context(t, opts.TTL+10*time.Second), "target")
	returned := time.Since(start)
	if !hook.done.Load() {
		t.Fatalf("HandOver returned %v without a Yield: the fault never ran", err)
	}
	if !errors.Is(err, lease.ErrLost) || !errors.Is(err, lease.ErrNotHandedOver) {
		t.Fatalf("%s: HandOver returned %v after %v, want an error wrapping ErrLost and ErrNotHandedOver: no write handed the key over", what, err, returned)
	}
	w := awaitWin(t, ch, backendtest.ExpiryBound(s.h, opts.TTL)+opts.RenewInterval+5*time.Second)
	if w.l.Token <= l.Token {
		t.Fatalf("target leads with token %d after %d", w.l.Token, l.Token)
	}
	t.Logf("%s at the leader's yield: HandOver returned after %v: %v; target led by campaign after %v",
		what, returned, err, w.at.Sub(start))
}

// onYield runs do once, on the elector's loop goroutine, when the
// elector logs the core's Yield action for election: before the
// handover's first write is sent. Its log is the elector's Logger.
type onYield struct {
	log  actionLog
	do   func() // set before the handover begins
	done atomic.Bool
}

func newOnYield(election string) *onYield {
	h := &onYield{}
	h.log.on = func(act string) {
		if act == "yield "+election && h.done.CompareAndSwap(false, true) {
			h.do()
		}
	}
	return h
}
