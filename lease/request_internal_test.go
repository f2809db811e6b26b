package lease

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver"
)

// TestRequestHandover: a leader that follows its candidate list honours a
// request from outside the election, and the requester gets the named
// candidate's term. Every leader follows it, FollowRoster or not (its
// watch set carries the lists).
func TestRequestHandover(t *testing.T) {
	etcdStore := embeddedStore(t)
	for _, tc := range []struct {
		name   string
		follow bool // FollowRoster
	}{
		{"follow", true},
		{"etcd", false},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		el := "request/" + tc.name
		leader, l := leading(t, ctx, etcdStore, el, Options{Identity: "leader", FollowRoster: tc.follow})
		next := testElector(t, etcdStore, Options{Identity: "next"})
		go func() { _, _ = next.Campaign(ctx, el) }()
		requester := testElector(t, etcdStore, Options{Identity: "requester"})
		awaitCandidates(t, ctx, requester, el, 2)
		info, err := requester.RequestHandover(ctx, el, "next")
		switch {
		case err != nil || info.Identity != "next" || info.Token <= l.Token:
			t.Fatalf("%s: request to a following leader: %+v, %v; want next leading with a higher token than %d", tc.name, info, err, l.Token)
		case !errors.Is(l.Err(), ErrHandover):
			t.Fatalf("%s: the following leader's leadership ended with %v, want ErrHandover", tc.name, l.Err())
		}
		for _, e := range []*LeaseElector{requester, next, leader} {
			_ = e.Close(ctx)
		}
		cancel()
	}
}

// TestCampaignDuringRequest: while a RequestHandover of an election runs
// on an elector (held here just after its request record is written),
// Campaign of that election and a second RequestHandover of it on that
// elector fail at once with ErrBusy: a candidacy would overwrite the
// request's record, and the request's removal would delete the
// candidacy's. Once the request has ended, Campaign goes on.
func TestCampaignDuringRequest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store := embeddedStore(t)
	el := "request/during"
	leader, _ := leading(t, ctx, store, el, Options{Identity: "leader"})
	defer func() { _ = leader.Close(ctx) }()
	next := testElector(t, store, Options{Identity: "next"})
	defer func() { _ = next.Close(ctx) }()
	nextWon := make(chan *Leadership, 1)
	go func() { nl, _ := next.Campaign(ctx, el); nextWon <- nl }()
	g := &gatedJoins{joined: make(chan struct{}, 1), gate: make(chan struct{})}
	requester := testElector(t, backends.NewStore(wrappedSessions{driver.Of(store), g.wrap}), Options{Identity: "requester"})
	defer func() { _ = requester.Close(ctx) }()
	awaitCandidates(t, ctx, requester, el, 2)
	asked := make(chan error, 1)
	go func() { _, err := requester.RequestHandover(ctx, el, "next"); asked <- err }()
	select {
	case <-g.joined:
	case <-ctx.Done():
		t.Fatal("the request record was not written")
	}
	short, stop := context.WithTimeout(ctx, 2*time.Second)
	_, cerr := requester.Campaign(short, el)
	_, rerr := requester.RequestHandover(short, el, "")
	stop()
	close(g.gate)
	if !errors.Is(cerr, ErrBusy) || !errors.Is(rerr, ErrBusy) {
		t.Fatalf("during a RequestHandover on the same elector: Campaign %v, a second request %v; want ErrBusy at once", cerr, rerr)
	}
	if err := <-asked; err != nil {
		t.Fatalf("the request: %v", err)
	}
	won := make(chan error, 1)
	go func() { _, err := requester.Campaign(ctx, el); won <- err }()
	if nl := <-nextWon; nl == nil || nl.Resign(ctx) != nil {
		t.Fatal("the request's target did not lead and resign")
	}
	if err := <-won; err != nil {
		t.Fatalf("Campaign after the request ended: %v", err)
	}
}

// gatedJoins makes sessions whose Join calls, once made, wait until gate
// is closed, the first sending on joined.
type gatedJoins struct {
	joined chan struct{}
	gate   chan struct{}
}

func (g *gatedJoins) wrap(s backends.Session) backends.Session { return gatedSession{s, g} }

// gatedSession is a session of gatedJoins.
type gatedSession struct {
	backends.Session
	g *gatedJoins
}

func (gs gatedSession) Join(ctx context.Context, election string, value []byte) (backends.Record, error) {
	g := gs.g
	rec, err := gs.Session.Join(ctx, election, value)
	select {
	case g.joined <- struct{}{}:
	default:
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
	}
	return rec, err
}

// TestRequestHandoverNoOther: a request for the next in line where the
// leader alone is listed fails with ErrNoCandidate, saying that no other
// candidate waits, with no empty name.
func TestRequestHandoverNoOther(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store := embeddedStore(t)
	el := "request/alone"
	leader, _ := leading(t, ctx, store, el, Options{Identity: "leader"})
	defer func() { _ = leader.Close(ctx) }()
	requester := testElector(t, store, Options{Identity: "requester"})
	defer func() { _ = requester.Close(ctx) }()
	awaitCandidates(t, ctx, requester, el, 1)
	_, err := requester.RequestHandover(ctx, el, "")
	if !errors.Is(err, ErrNoCandidate) || !strings.Contains(err.Error(), "no other candidate that may lead waits") {
		t.Fatalf("request with only the leader listed: %v; want ErrNoCandidate saying no other candidate that may lead waits", err)
	}
}

// TestRequestOutcome: what each leader a request's wait sees makes of it.
// A request made at 9 in the term of token 7, to c: a term begun before
// it (token 8, between the requester's read of the leader and its
// write) may still honour it; one begun after it that is not c's will
// not, nor will any later one (ErrOvertaken), however it began; c's, or
// any new term for a request to no one in particular, ends the wait,
// unless it is a's again, on its session or a new one: that is no
// handover, and is judged as another's term. Another candidate listed
// when the request was made (s5) that shares a's identity is a handover.
func TestRequestOutcome(t *testing.T) {
	from := LeaderInfo{Identity: "a", Session: "s1", Token: 7}
	for _, tc := range []struct {
		name      string
		to        string
		info      LeaderInfo
		done      bool
		overtaken bool
	}{
		{"no leader", "c", LeaderInfo{}, false, false},
		{"same term", "c", from, false, false},
		{"term begun before the request", "c", LeaderInfo{Identity: "b", Session: "s2", Token: 8}, false, false},
		{"other term begun after", "c", LeaderInfo{Identity: "b", Session: "s2", Token: 10}, true, true},
		{"the target's term", "c", LeaderInfo{Identity: "c", Session: "s3", Token: 10}, true, false},
		{"the target's term, by session", "s3", LeaderInfo{Identity: "c", Session: "s3", Token: 10}, true, false},
		{"any new term, no target", "", LeaderInfo{Identity: "b", Session: "s2", Token: 10}, true, false},
		{"the leader again, begun before, no target", "", LeaderInfo{Identity: "a", Session: "s4", Token: 8}, false, false},
		{"the leader again, begun after, no target", "", LeaderInfo{Identity: "a", Session: "s4", Token: 10}, true, true},
		{"the leader again on its session, no target", "", LeaderInfo{Identity: "a", Session: "s1", Token: 10}, true, true},
		{"a waiting namesake of the leader, no target", "", LeaderInfo{Identity: "a", Session: "s5", Token: 10}, true, false},
	} {
		p := pending{from: from, joined: 9, to: tc.to, requestSeen: requestSeen{others: map[string]bool{"s2": true, "s3": true, "s5": true}}}
		done, err := p.outcome(tc.info)
		if done != tc.done || errors.Is(err, ErrOvertaken) != tc.overtaken || (err != nil && !tc.overtaken) {
			t.Errorf("%s: outcome(%+v) = %v, %v; want done %v, ErrOvertaken %v", tc.name, tc.info, done, err, tc.done, tc.overtaken)
		}
	}
}
