package leasetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// runAwaitTargetTests runs the cases of Leadership.AwaitTarget, the wait
// of a leader for a handover's target in the roster it follows.
func (s *suite) runAwaitTargetTests(t *testing.T) {
	t.Run("Appears", s.testAwaitTargetAppears)
	t.Run("NeverCampaigns", s.testAwaitTargetAbsent)
	t.Run("LeadershipEnds", s.testAwaitTargetLost)
}

// awaitBound is how long after its cause AwaitTarget may take to return:
// a round trip to read the roster after the change, and one to spare.
func awaitBound(opts lease.Options) time.Duration { return 2*opts.RequestTimeout + time.Second }

// awaitAsync calls l.AwaitTarget(ctx, to) in a goroutine and delivers
// its error.
func awaitAsync(ctx context.Context, l *lease.Leadership, to string) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- l.AwaitTarget(ctx, to) }()
	return ch
}

// awaited returns AwaitTarget's error from ch, failing t if it does not
// come within d.
func awaited(t *testing.T, ch <-chan error, d time.Duration, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(d):
		t.Fatalf("AwaitTarget did not return within %v of %s", d, what)
	}
	return nil
}

// testAwaitTargetAppears: a leader awaits "next" while another candidate
// waits; AwaitTarget does not return for that one, returns nil within
// awaitBound of next's campaign, and the HandOver to next it announces
// then succeeds. Named by session ID, or with any target (""), the
// target is found at once.
func (s *suite) testAwaitTargetAppears(t *testing.T) {
	opts := s.opts(t)
	leader, _ := s.elector(t, "leader")
	other, _ := s.elector(t, "other")
	next, _ := s.elector(t, "next")
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 60*time.Second)
	l := campaign(t, leader, el)
	got := awaitAsync(ctx, l, "next")
	campaignAsync(t, other, el)
	awaitCandidates(t, leader, el, 10*time.Second, waiting(1))
	select {
	case err := <-got:
		t.Fatalf("AwaitTarget(next) returned %v with only other waiting", err)
	default:
	}
	session := awaitSession(t, next)
	start := time.Now()
	won := campaignAsync(t, next, el)
	if err := awaited(t, got, 10*time.Second+awaitBound(opts), "next's campaign"); err != nil {
		t.Fatalf("AwaitTarget(next) once next campaigns = %v, want nil", err)
	}
	took := time.Since(start)
	for _, to := range []string{session, ""} {
		if err := l.AwaitTarget(backendtest.Context(t, opts.RequestTimeout), to); err != nil {
			t.Fatalf("AwaitTarget(%q) with next listed = %v, want nil at once", to, err)
		}
	}
	if err := l.HandOver(ctx, "next"); err != nil {
		t.Fatalf("HandOver(next) after AwaitTarget = %v", err)
	}
	if w := awaitWin(t, won, 10*time.Second); w.l.Token <= l.Token {
		t.Fatalf("next leads with token %d after %d", w.l.Token, l.Token)
	}
	if took > awaitBound(opts) {
		t.Fatalf("AwaitTarget returned %v after next's campaign began, want within %v", took, awaitBound(opts))
	}
	t.Logf("AwaitTarget returned %v after next's campaign began", took)
}

// testAwaitTargetAbsent: with another candidate waiting but never the
// target, AwaitTarget returns when its context ends, with an error
// wrapping the context's (not ErrLost), neither before nor long after;
// the leadership goes on.
func (s *suite) testAwaitTargetAbsent(t *testing.T) {
	opts := s.opts(t)
	leader, _ := s.elector(t, "leader")
	other, _ := s.elector(t, "other")
	el := backendtest.Election(t)
	l := campaign(t, leader, el)
	campaignAsync(t, other, el)
	awaitCandidates(t, leader, el, 10*time.Second, waiting(1))
	d := opts.RequestTimeout + 500*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	err := awaited(t, awaitAsync(ctx, l, "nobody"), d+awaitBound(opts), "its context's deadline")
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, lease.ErrLost) {
		t.Fatalf("AwaitTarget(nobody) = %v after %v, want an error wrapping context.DeadlineExceeded", err, took)
	}
	if took < d {
		t.Fatalf("AwaitTarget(nobody) returned after %v, before its context's deadline %v", took, d)
	}
	ended, stop := context.WithCancel(context.Background())
	stop()
	if err := l.AwaitTarget(ended, "nobody"); !errors.Is(err, context.Canceled) {
		t.Fatalf("AwaitTarget(nobody) with a cancelled context = %v, want context.Canceled", err)
	}
	if err := l.Err(); err != nil {
		t.Fatalf("the leadership ended while awaiting: %v", err)
	}
	t.Logf("AwaitTarget(nobody) returned %v after its %v deadline: %v", took-d, d, err)
}

// testAwaitTargetLost: the store expires the leader's session while it
// awaits a target that never comes; AwaitTarget returns within
// awaitBound of the leadership's end, with an error wrapping ErrLost and
// the leadership's cause, well before its own context ends; called again
// on the ended leadership, it says so at once.
func (s *suite) testAwaitTargetLost(t *testing.T) {
	opts := s.opts(t)
	leader, _ := s.elector(t, "leader")
	el := backendtest.Election(t)
	l := campaign(t, leader, el)
	got := awaitAsync(backendtest.Context(t, 60*time.Second), l, "nobody")
	if err := s.h.ExpireSession(backendtest.Context(t, 10*time.Second), l.Session); err != nil {
		t.Fatal(err)
	}
	end := doneWithin(t, l, opts.RenewInterval+opts.RequestTimeout+5*time.Second)
	err := awaited(t, got, awaitBound(opts), "the leadership's end")
	took := time.Since(end)
	if !errors.Is(err, lease.ErrLost) || !errors.Is(err, l.Err()) {
		t.Fatalf("AwaitTarget when the leadership ended (%v) = %v, want an error wrapping ErrLost and that cause", l.Err(), err)
	}
	if err := l.AwaitTarget(backendtest.Context(t, opts.RequestTimeout), "nobody"); !errors.Is(err, lease.ErrLost) {
		t.Fatalf("AwaitTarget of an ended leadership = %v, want ErrLost", err)
	}
	t.Logf("AwaitTarget returned %v after the leadership ended: %v", took, err)
}
