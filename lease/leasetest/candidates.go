package leasetest

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// runCandidateTests runs the tests of the candidate list.
func (s *suite) runCandidateTests(t *testing.T) {
	t.Run("Exact", s.testCandidatesExact)
	t.Run("ObserveJoin", s.testObserveCandidatesJoin)
}

// listed is what a test expects of one Candidate.
type listed struct {
	e        *lease.LeaseElector
	priority int
	mayLead  bool
	leader   bool
}

// testCandidatesExact: the list is exact, in succession order, after
// joins (a leader, waiters of two priorities, one that may not lead), a
// graceful leave (a canceled campaign), and a crash (a severed
// connection: the record goes with the session, within its TTL).
func (s *suite) testCandidatesExact(t *testing.T) {
	el := backendtest.Election(t)
	obs := s.mustElector(t, "observer")
	follow, err := obs.ObserveCandidates(backendtest.Context(t, 60*time.Second), el)
	if err != nil {
		t.Fatal(err)
	}
	leader := s.electorWith(t, "leader", s.policy(lease.Options{Priority: 1, Labels: map[string]string{"zone": "a"}}))
	campaign(t, leader, el)
	want := []listed{{leader, 1, true, true}}
	awaitList(t, follow, want, 10*time.Second)
	stops := map[string]context.CancelFunc{}
	for _, c := range []struct {
		id       string
		opts     lease.Options
		at       int // its place in the list once it joined
		priority int
	}{
		{"high1", lease.Options{Priority: 5}, 1, 5},
		{"low", lease.Options{}, 2, 0},
		{"high2", lease.Options{Priority: 5}, 2, 5},
		{"nolead", lease.Options{Priority: 9, NoLead: true}, 4, 9},
	} {
		e, sever := s.electorOpts(t, c.id, s.policy(c.opts))
		stops[c.id] = standAsync(t, e, el)
		if c.id == "low" {
			stops["sever"] = sever
		}
		want = append(want[:c.at:c.at], append([]listed{{e, c.priority, !c.opts.NoLead, false}}, want[c.at:]...)...)
		awaitList(t, follow, want, 10*time.Second)
	}
	checkList(t, obs, el, want)

	stops["high2"]() // leaves gracefully
	want = append(want[:2:2], want[3:]...)
	awaitList(t, follow, want, 10*time.Second)
	checkList(t, obs, el, want)

	stops["sever"]() // "low" crashes: gone with its session
	want = append(want[:2:2], want[3:]...)
	awaitList(t, follow, want, 3*s.opts(t).TTL+10*time.Second)
	checkList(t, obs, el, want)
}

// testObserveCandidatesJoin: an observer sees a leader join, and a waiter
// after it, within a deadline.
func (s *suite) testObserveCandidatesJoin(t *testing.T) {
	el := backendtest.Election(t)
	obs := s.mustElector(t, "observer")
	follow, err := obs.ObserveCandidates(backendtest.Context(t, 60*time.Second), el)
	if err != nil {
		t.Fatal(err)
	}
	awaitList(t, follow, nil, 10*time.Second)
	first := s.mustElector(t, "first")
	campaign(t, first, el)
	want := []listed{{first, 0, true, true}}
	awaitList(t, follow, want, 5*time.Second)
	second := s.mustElector(t, "second")
	awaitSession(t, second)
	standAsync(t, second, el)
	awaitList(t, follow, append(want, listed{second, 0, true, false}), 5*time.Second)
}

// policy is the suite's base options with the policy options of p.
func (s *suite) policy(p lease.Options) lease.Options {
	o := s.base
	o.Priority, o.NoLead, o.Labels = p.Priority, p.NoLead, p.Labels
	return o
}

// standAsync campaigns for el in the background until the returned
// function stops it (it is also stopped when t ends).
func standAsync(t *testing.T, e *lease.LeaseElector, el string) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		if l, err := e.Campaign(ctx, el); err == nil {
			<-ctx.Done()
			_ = l.Resign(context.Background())
		}
	}()
	return cancel
}

// awaitList reads follow until it sends a list matching want, and fails
// the test if none comes within the deadline.
func awaitList(t *testing.T, follow <-chan []lease.Candidate, want []listed, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	var last []lease.Candidate
	for {
		select {
		case cs, ok := <-follow:
			if !ok {
				t.Fatalf("ObserveCandidates closed its channel; last list %s", render(last))
			}
			if mismatch(cs, want) == "" {
				return
			}
			last = cs
		case <-deadline:
			t.Fatalf("no list %s within %v; last %s: %s", renderWant(want), within, render(last), mismatch(last, want))
		}
	}
}

// checkList checks that Candidates returns want exactly.
func checkList(t *testing.T, obs *lease.LeaseElector, el string, want []listed) {
	t.Helper()
	cs, err := obs.Candidates(backendtest.Context(t, 10*time.Second), el)
	if err != nil {
		t.Fatalf("Candidates: %v", err)
	}
	if m := mismatch(cs, want); m != "" {
		t.Fatalf("Candidates = %s: %s", render(cs), m)
	}
}

// mismatch says how cs differs from want, or "" if it does not.
func mismatch(cs []lease.Candidate, want []listed) string {
	if len(cs) != len(want) {
		return fmt.Sprintf("%d candidates, want %d", len(cs), len(want))
	}
	for i, w := range want {
		c := cs[i]
		switch {
		case c.Identity != w.e.Identity() || c.Session != w.e.SessionID():
			return fmt.Sprintf("#%d is %s on session %s, want %s on %s", i, c.Identity, c.Session, w.e.Identity(), w.e.SessionID())
		case c.Priority != w.priority || c.MayLead != w.mayLead || c.Leader != w.leader || c.Damped || c.Requester:
			return fmt.Sprintf("#%d %+v, want priority %d, may lead %v, leader %v", i, c, w.priority, w.mayLead, w.leader)
		case !maps.Equal(c.Labels, w.e.Options().Labels) || c.Joined.IsZero():
			return fmt.Sprintf("#%d %+v: labels %v, want %v, and a join time", i, c, c.Labels, w.e.Options().Labels)
		}
	}
	return ""
}

func render(cs []lease.Candidate) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "[%s p%d lead=%v leader=%v] ", c.Identity, c.Priority, c.MayLead, c.Leader)
	}
	return b.String()
}

func renderWant(want []listed) string {
	var b strings.Builder
	for _, w := range want {
		fmt.Fprintf(&b, "[%s p%d lead=%v leader=%v] ", w.e.Identity(), w.priority, w.mayLead, w.leader)
	}
	return b.String()
}
