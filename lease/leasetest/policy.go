package leasetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// runPolicyTests runs the election policies' cases (docs/policies.md).
func (s *suite) runPolicyTests(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"Preempt", s.testPreempt},
		{"NoPreemptEqualOrLower", s.testNoPreemptEqualOrLower},
		{"HandOverNamed", s.testHandOverNamed},
		{"HandOverTargetKilled", s.testHandOverTargetKilled},
		{"HandOverTakesNoCall", s.testHandOverTakesNoCall},
		{"NoLead", s.testNoLead},
		{"Damping", s.testDamping},
		{"SuccessionOrder", s.testSuccessionOrder},
		{"ResignToHigher", s.testResignToHigher},
		{"OwnRequestRefused", s.testOwnRequestRefused},
		{"HandOverRace", s.testHandOverRace},
		{"RequestOvertaken", s.testRequestOvertaken},
		{"HandOverLeaderCut", s.testHandOverLeaderCut},
		{"HandOverTargetExpired", s.testHandOverTargetExpired},
	} {
		t.Run(tc.name, tc.fn)
	}
}

// policyElector is an elector with the suite's options changed by set.
func (s *suite) policyElector(t *testing.T, identity string, set func(*lease.Options)) (*lease.LeaseElector, func()) {
	t.Helper()
	opts := s.base
	if set != nil {
		set(&opts)
	}
	return s.electorOpts(t, identity, opts)
}

// awaitCandidates waits until election's candidate list, as
// ObserveCandidates streams it, satisfies ok, and returns that list.
func awaitCandidates(t *testing.T, e *lease.LeaseElector, el string, within time.Duration, ok func([]lease.Candidate) bool) []lease.Candidate {
	t.Helper()
	ch, err := e.ObserveCandidates(backendtest.Context(t, within), el)
	if err != nil {
		t.Fatalf("ObserveCandidates: %v", err)
	}
	var last []lease.Candidate
	for cs := range ch {
		if last = cs; ok(cs) {
			return cs
		}
	}
	t.Fatalf("candidates of %q not as wanted within %v; last seen: %s", el, within, describe(last))
	return nil
}

func describe(cs []lease.Candidate) string {
	s := "["
	for i, c := range cs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s(p%d lead=%v may=%v damped=%v)", c.Identity, c.Priority, c.Leader, c.MayLead, c.Damped)
	}
	return s + "]"
}

// waiting reports whether cs lists n candidates besides the leader, and a
// leader.
func waiting(n int) func([]lease.Candidate) bool {
	return func(cs []lease.Candidate) bool {
		leaders := 0
		for _, c := range cs {
			if c.Leader {
				leaders++
			}
		}
		return leaders == 1 && len(cs) == n+1
	}
}

// holds fails t if l ends within d: a bounded look for a change that must
// not come.
func holds(t *testing.T, l *lease.Leadership, d time.Duration, why string) {
	t.Helper()
	select {
	case <-l.Context().Done():
		t.Fatalf("%s: leadership token %d ended: %v", why, l.Token, l.Err())
	case <-time.After(d):
	}
}

// testPreempt: a candidate of higher priority joins; after its stability
// window the leader's leadership ends with ErrHandover, before the higher
// one leads, and the higher one leads within one hand-off after that.
func (s *suite) testPreempt(t *testing.T) {
	opts := s.opts(t)
	after := opts.TTL
	low, _ := s.policyElector(t, "low", func(o *lease.Options) { o.Preempt, o.PreemptAfter = true, after })
	high, _ := s.policyElector(t, "high", func(o *lease.Options) { o.Priority, o.Preempt, o.PreemptAfter = 10, true, after })
	el := backendtest.Election(t)
	l := campaign(t, low, el)
	awaitSession(t, high)
	joined := time.Now()
	ch := campaignAsync(t, high, el)
	stopped := doneWithin(t, l, after+opts.TTL+5*time.Second)
	w := awaitWin(t, ch, 10*time.Second)
	if !errors.Is(l.Err(), lease.ErrHandover) {
		t.Fatalf("preempted leader's reason %v, want ErrHandover", l.Err())
	}
	if !stopped.Before(w.l.Acquired) || w.l.Token <= l.Token {
		t.Fatalf("old leader stopped at +%v, new one started at +%v; tokens %d then %d",
			stopped.Sub(joined), w.l.Acquired.Sub(joined), l.Token, w.l.Token)
	}
	if d := stopped.Sub(joined); d < after {
		t.Fatalf("preempted after %v, before the stability window %v", d, after)
	}
	t.Logf("preempt: leader stopped %v after the higher joined (window %v), higher led %v after that",
		stopped.Sub(joined), after, w.at.Sub(stopped))
	holds(t, w.l, 2*after, "the higher-priority leader must not be preempted back")
}

// testNoPreemptEqualOrLower: waiting candidates of equal and of lower
// priority never preempt a leader that allows preemption.
func (s *suite) testNoPreemptEqualOrLower(t *testing.T) {
	opts := s.opts(t)
	set := func(p int) func(*lease.Options) {
		return func(o *lease.Options) { o.Priority, o.Preempt, o.PreemptAfter = p, true, opts.TTL }
	}
	leader, _ := s.policyElector(t, "leader", set(5))
	equal, _ := s.policyElector(t, "equal", set(5))
	lower, _ := s.policyElector(t, "lower", set(1))
	el := backendtest.Election(t)
	l := campaign(t, leader, el)
	campaignAsync(t, equal, el)
	campaignAsync(t, lower, el)
	awaitCandidates(t, leader, el, 10*time.Second, waiting(2))
	holds(t, l, 2*opts.TTL, "equal and lower priorities must not preempt")
}

// testHandOverNamed: among five waiters, a handover always goes to the
// named one, three times over, each new leader naming the next.
func (s *suite) testHandOverNamed(t *testing.T) {
	el := backendtest.Election(t)
	first, _ := s.policyElector(t, "first", nil)
	l := campaign(t, first, el)
	pending := map[string]<-chan won{}
	electors := map[string]*lease.LeaseElector{"first": first}
	for i := range 5 {
		id := fmt.Sprintf("w%d", i)
		e, _ := s.policyElector(t, id, nil)
		electors[id] = e
		pending[id] = campaignAsync(t, e, el)
	}
	awaitCandidates(t, first, el, 10*time.Second, waiting(5))
	prev := "first"
	for _, to := range []string{"w3", "w1", "w4"} {
		start := time.Now()
		if err := l.HandOver(backendtest.Context(t, 10*time.Second), to); err != nil {
			t.Fatalf("HandOver(%q): %v", to, err)
		}
		if !errors.Is(l.Err(), lease.ErrHandover) {
			t.Fatalf("after HandOver the leadership's reason is %v, want ErrHandover", l.Err())
		}
		w := awaitWin(t, pending[to], 5*time.Second)
		delete(pending, to)
		if w.l.Identity != to || w.l.Token <= l.Token {
			t.Fatalf("handover to %s: %s leads with token %d after %d", to, w.l.Identity, w.l.Token, l.Token)
		}
		t.Logf("handover %s → %s took %v", prev, to, w.at.Sub(start))
		pending[prev] = campaignAsync(t, electors[prev], el)
		l, prev = w.l, to
		awaitCandidates(t, electors[to], el, 10*time.Second, waiting(5))
	}
	for id, ch := range pending {
		select {
		case w := <-ch:
			t.Fatalf("%s won (token %d, err %v) though no handover named it", id, tokenOf(w), w.err)
		default:
		}
	}
}

func tokenOf(w won) uint64 {
	if w.l == nil {
		return 0
	}
	return uint64(w.l.Token)
}

// testHandOverTargetKilled: the named target's connection is cut as the
// handover starts; the key is passed to it, or deleted, and another
// waiter leads once the target's session has expired.
func (s *suite) testHandOverTargetKilled(t *testing.T) {
	opts := s.opts(t)
	el := backendtest.Election(t)
	leader, _ := s.policyElector(t, "leader", nil)
	target, sever := s.policyElector(t, "target", nil)
	other, _ := s.policyElector(t, "other", nil)
	l := campaign(t, leader, el)
	campaignAsync(t, target, el)
	ch := campaignAsync(t, other, el)
	awaitCandidates(t, leader, el, 10*time.Second, waiting(2))
	sever()
	start := time.Now()
	if err := l.HandOver(backendtest.Context(t, 10*time.Second), "target"); err != nil {
		t.Fatalf("HandOver: %v", err)
	}
	limit := backendtest.ExpiryBound(s.h, opts.TTL) + opts.RenewInterval
	w := awaitWin(t, ch, limit+5*time.Second)
	if d := w.at.Sub(start); d > limit {
		t.Fatalf("other led %v after the handover began, want within the target's expiry = %v", d, limit)
	}
	t.Logf("target cut: other led after %v", w.at.Sub(start))
}

// testNoLead: a candidate that may not lead is listed but never takes the
// key, even when it is the only candidate left.
func (s *suite) testNoLead(t *testing.T) {
	opts := s.opts(t)
	el := backendtest.Election(t)
	leader, _ := s.policyElector(t, "leader", nil)
	standby, _ := s.policyElector(t, "standby", func(o *lease.Options) { o.NoLead = true })
	l := campaign(t, leader, el)
	ch := campaignAsync(t, standby, el)
	cs := awaitCandidates(t, leader, el, 10*time.Second, waiting(1))
	if c := cs[len(cs)-1]; c.Identity != "standby" || c.MayLead {
		t.Fatalf("candidates %s: want standby listed last with MayLead false", describe(cs))
	}
	resign(t, l)
	select {
	case w := <-ch:
		t.Fatalf("NoLead candidate's campaign ended: token %d, err %v", tokenOf(w), w.err)
	case <-time.After(2 * opts.TTL):
	}
	if _, err := leader.Leader(backendtest.Context(t, 5*time.Second), el); !errors.Is(err, lease.ErrNoLeader) {
		t.Fatalf("Leader after the only may-lead candidate resigned: %v, want ErrNoLeader", err)
	}
}

// testDamping: a candidate that loses its leadership Losses times within
// the window sits out: a later candidate leads though it came second,
// and the list shows it damped.
func (s *suite) testDamping(t *testing.T) {
	opts := s.opts(t)
	el := backendtest.Election(t)
	flappy, _ := s.policyElector(t, "flappy", func(o *lease.Options) {
		o.Damping = lease.Damping{Losses: 2, Window: 100 * opts.TTL, Penalty: 10 * opts.TTL, Cap: 20 * opts.TTL}
	})
	steady, _ := s.policyElector(t, "steady", nil)
	for i := range 2 {
		l := campaign(t, flappy, el)
		if err := s.h.ExpireSession(backendtest.Context(t, 10*time.Second), l.Session); err != nil {
			t.Fatal(err)
		}
		doneWithin(t, l, opts.TTL+5*time.Second)
		t.Logf("loss %d: %v", i+1, l.Err())
	}
	awaitSession(t, steady)
	fch := campaignAsync(t, flappy, el)
	awaitCandidates(t, steady, el, 10*time.Second, func(cs []lease.Candidate) bool {
		return len(cs) == 1 && cs[0].Identity == "flappy" && cs[0].Damped
	})
	w := awaitWin(t, campaignAsync(t, steady, el), 5*time.Second)
	select {
	case f := <-fch:
		t.Fatalf("damped candidate won (token %d, err %v) before steady", tokenOf(f), f.err)
	default:
	}
	t.Logf("damped candidate sat out; steady leads with token %d", w.l.Token)
}

// testSuccessionOrder: Candidates lists the leader, then may-lead
// candidates by priority, then those that may not lead.
func (s *suite) testSuccessionOrder(t *testing.T) {
	el := backendtest.Election(t)
	leader, _ := s.policyElector(t, "leader", nil)
	l := campaign(t, leader, el)
	for _, c := range []struct {
		id     string
		prio   int
		noLead bool
	}{{"p0", 0, false}, {"standby", 50, true}, {"p10", 10, false}, {"p5", 5, false}} {
		e, _ := s.policyElector(t, c.id, func(o *lease.Options) { o.Priority, o.NoLead = c.prio, c.noLead })
		campaignAsync(t, e, el)
		awaitCandidates(t, leader, el, 10*time.Second, func(cs []lease.Candidate) bool {
			for _, x := range cs {
				if x.Identity == c.id {
					return true
				}
			}
			return false
		})
	}
	cs, err := leader.Candidates(backendtest.Context(t, 5*time.Second), el)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.Identity)
	}
	want := []string{"leader", "p10", "p5", "p0", "standby"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("succession order %v, want %v", got, want)
	}
	if !cs[0].Leader || cs[0].Session != l.Session {
		t.Fatalf("first candidate %+v is not the leader (session %s)", cs[0], l.Session)
	}
}

// testResignToHigher: a leader that follows the roster resigns while a
// candidate of higher priority waits behind one of lower priority, the
// first in line: the higher one leads, three times over.
func (s *suite) testResignToHigher(t *testing.T) {
	follow := func(o *lease.Options) { o.FollowRoster = true }
	within := 5 * time.Second
	for i := range 3 {
		// An election each: the records of an earlier round's electors,
		// whose campaigns ended, may still be on their way out.
		el := fmt.Sprintf("%s-%d", backendtest.Election(t), i)
		leader, _ := s.policyElector(t, fmt.Sprintf("leader%d", i), follow)
		l := campaign(t, leader, el)
		low, _ := s.policyElector(t, fmt.Sprintf("low%d", i), follow)
		lowCh := campaignAsync(t, low, el)
		awaitCandidates(t, leader, el, 10*time.Second, waiting(1))
		high, _ := s.policyElector(t, fmt.Sprintf("high%d", i), func(o *lease.Options) { o.Priority, o.FollowRoster = 10, true })
		highCh := campaignAsync(t, high, el)
		awaitCandidates(t, leader, el, 10*time.Second, waiting(2))
		resign(t, l)
		w := awaitWin(t, highCh, within)
		select {
		case lw := <-lowCh:
			t.Fatalf("the first in line, of lower priority, won (token %d, err %v)", tokenOf(lw), lw.err)
		default:
		}
		resign(t, w.l)
		resign(t, awaitWin(t, lowCh, within).l)
	}
}
