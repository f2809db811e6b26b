package leasetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// testOwnRequestRefused: a waiting candidate's RequestHandover of its own
// election fails at once with ErrBusy and writes nothing (its request
// record would be its candidate record, which the request's removal would
// delete): the candidate stays listed, and the leader's HandOver to it
// reaches it.
func (s *suite) testOwnRequestRefused(t *testing.T) {
	el := backendtest.Election(t)
	leader, _ := s.policyElector(t, "leader", nil)
	waiter, _ := s.policyElector(t, "waiter", nil)
	l := campaign(t, leader, el)
	ch := campaignAsync(t, waiter, el)
	awaitCandidates(t, leader, el, 10*time.Second, waiting(1))
	if _, err := waiter.RequestHandover(backendtest.Context(t, 5*time.Second), el, "waiter"); !errors.Is(err, lease.ErrBusy) {
		t.Fatalf("a waiting candidate's own RequestHandover: %v, want ErrBusy at once", err)
	}
	cs, err := leader.Candidates(backendtest.Context(t, 10*time.Second), el)
	if err != nil {
		t.Fatalf("Candidates: %v", err)
	}
	if !listedWaiting(cs, waiter) {
		t.Fatalf("after its own request the candidate is not listed as waiting: %s", describe(cs))
	}
	if err := l.HandOver(backendtest.Context(t, 10*time.Second), "waiter"); err != nil {
		t.Fatalf("HandOver to the candidate after its own request: %v", err)
	}
	if w := awaitWin(t, ch, 10*time.Second); w.l.Identity != "waiter" {
		t.Fatalf("after the handover %s leads, want waiter", w.l.Identity)
	}
}

// listedWaiting reports whether cs lists e's candidacy: on its session,
// may lead, and not a request.
func listedWaiting(cs []lease.Candidate, e *lease.LeaseElector) bool {
	for _, c := range cs {
		if c.Session == e.SessionID() && c.Identity == e.Identity() && c.MayLead && !c.Requester && !c.Leader {
			return true
		}
	}
	return false
}

// testHandOverRace: of two HandOver calls on one Leadership at once, to a
// candidate that waits, one hands over and the other fails with ErrLost
// (the leadership ended), not ErrNoCandidate. Ten rounds: where the
// handover often ends the term within the loser's roster read
// (ZooKeeper), a round shows the loser's path only now and then.
func (s *suite) testHandOverRace(t *testing.T) {
	leader, _ := s.policyElector(t, "leader", nil)
	target, _ := s.policyElector(t, "target", nil)
	for round := range 10 {
		el := fmt.Sprintf("%s-%d", backendtest.Election(t), round)
		l := campaign(t, leader, el)
		ch := campaignAsync(t, target, el)
		awaitCandidates(t, leader, el, 10*time.Second, waiting(1))
		errs := make(chan error, 2)
		for range 2 {
			go func() { errs <- l.HandOver(backendtest.Context(t, 10*time.Second), "target") }()
		}
		first, second := <-errs, <-errs
		if first != nil && second == nil {
			first, second = second, first
		}
		if first != nil || !errors.Is(second, lease.ErrLost) || errors.Is(second, lease.ErrNoCandidate) {
			t.Fatalf("round %d: two HandOver calls at once returned %v and %v: want nil and ErrLost (not ErrNoCandidate)", round, first, second)
		}
		w := awaitWin(t, ch, 10*time.Second)
		resign(t, w.l)
	}
}

// testRequestOvertaken: a second outside request, made while the leader
// yields to a first, fails with ErrOvertaken as soon as the first's
// target leads (a leader honours only requests made during its term, so
// none will honour it), not when its context ends; the first gets its
// target's term. The leader keeps the key until it resigns: its
// SafetyMargin (the yield's bound) is most of its TTL.
func (s *suite) testRequestOvertaken(t *testing.T) {
	el := backendtest.Election(t)
	leader, _ := s.policyElector(t, "leader", func(o *lease.Options) { o.SafetyMargin = o.TTL * 3 / 4 })
	l := campaign(t, leader, el)
	wins := map[string]<-chan won{}
	for _, id := range []string{"b", "c"} {
		e, _ := s.policyElector(t, id, nil)
		wins[id] = campaignAsync(t, e, el)
	}
	awaitCandidates(t, leader, el, 10*time.Second, waiting(2))
	first := requestAsync(t, s, "r1", el, "b")
	doneWithin(t, l, 10*time.Second)
	second := requestAsync(t, s, "r2", el, "c")
	awaitCandidates(t, leader, el, 10*time.Second, requesters(2))
	resign(t, l)
	w := awaitWin(t, wins["b"], 10*time.Second)
	if r := <-first; r.err != nil || r.info.Identity != "b" {
		t.Fatalf("the first request, to b: %+v, %v; want b's term", r.info, r.err)
	}
	select {
	case r := <-second:
		if !errors.Is(r.err, lease.ErrOvertaken) {
			t.Fatalf("the second request, to c, once b leads: %+v, %v; want ErrOvertaken", r.info, r.err)
		}
		t.Logf("overtaken request: %v", r.err)
	case <-time.After(10 * time.Second):
		t.Fatalf("the second request, to c, still waits 10s after b leads (token %d)", w.l.Token)
	}
	resign(t, w.l)
}

type requested struct {
	info lease.LeaderInfo
	err  error
}

// requestAsync makes an outside request from an elector of its own,
// identity id, that does not campaign, with a 30s context.
func requestAsync(t *testing.T, s *suite, id, el, to string) <-chan requested {
	e, _ := s.policyElector(t, id, nil)
	ch := make(chan requested, 1)
	ctx := backendtest.Context(t, 30*time.Second)
	go func() {
		info, err := e.RequestHandover(ctx, el, to)
		ch <- requested{info, err}
	}()
	return ch
}

// requesters reports whether a list has n requests.
func requesters(n int) func([]lease.Candidate) bool {
	return func(cs []lease.Candidate) bool {
		k := 0
		for _, c := range cs {
			if c.Requester {
				k++
			}
		}
		return k == n
	}
}
