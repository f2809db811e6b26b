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
