package main

import (
	"context"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/lease"
)

// script runs the demo's story and prints what happens: a crash, a
// resign, a preemption and an operator's handover, each a new term.
func (d *demo) script(ctx context.Context) error {
	t, err := d.nextTerm(ctx)
	if err != nil {
		return err
	}
	for _, step := range []func(context.Context, *term) (*term, error){d.crash, d.resign, d.preempt, d.handOver} {
		d.pause(ctx, 400*time.Millisecond)
		if t, err = step(ctx, t); err != nil {
			return err
		}
	}
	d.pause(ctx, 300*time.Millisecond)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.logf("done: the guarded resource accepted %d writes; highest token %d", d.accepted, d.guard.Highest())
	return nil
}

// crash cuts the leader off without a resign; the leader stops acting
// before its successor starts, and its late write is rejected.
func (d *demo) crash(ctx context.Context, prev *term) (*term, error) {
	d.logf("killing %s: its connection to etcd is cut, it does not resign", prev.cand.name)
	killed := time.Now()
	prev.cand.crash()
	next, err := d.nextTerm(ctx)
	if err != nil {
		return nil, err
	}
	d.logf("crash hand-over took %v (TTL %v); token %d -> %d", next.l.Acquired.Sub(killed).Round(time.Millisecond), d.ttl, prev.l.Token, next.l.Token)
	if d.stoppedFirst(prev, next) {
		d.logf("%s had stopped acting %v after the cut, %v before %s started",
			prev.cand.name, prev.stoppedAt.Sub(killed).Round(time.Millisecond),
			next.l.Acquired.Sub(prev.stoppedAt).Round(time.Millisecond), next.cand.name)
	}
	d.logf("%s was only paused, wakes up and writes with its old token %d:", prev.cand.name, prev.l.Token)
	if err := d.write(prev.cand.name, prev.l.Token); err != nil {
		d.logf("guarded resource rejects it: %v", err)
	} else {
		d.logf("BUG: the guarded resource accepted a stale write")
	}
	// The killed candidate's elector, cut off, takes seconds to close:
	// close it now, while the story goes on.
	go prev.cand.close()
	return next, nil
}

// resign stops the leader's campaign: it resigns, and a waiter takes over.
func (d *demo) resign(ctx context.Context, prev *term) (*term, error) {
	d.logf("%s resigns gracefully", prev.cand.name)
	resigned := time.Now()
	prev.cand.stop()
	next, err := d.nextTerm(ctx)
	if err != nil {
		return nil, err
	}
	d.logf("resign hand-over took %v; token %d -> %d", next.l.Acquired.Sub(resigned).Round(time.Microsecond), prev.l.Token, next.l.Token)
	return next, nil
}

// preempt starts two candidates of a higher priority: after PreemptAfter
// the leader hands over to the first of them in line.
func (d *demo) preempt(ctx context.Context, prev *term) (*term, error) {
	d.logf("candidate-4 and candidate-5 join with priority 10 (the others have 0); a leader yields to a higher priority after %v", d.preemptAfter)
	joined := time.Now()
	for _, name := range []string{"candidate-4", "candidate-5"} {
		if err := d.join(ctx, name, 10); err != nil {
			return nil, err
		}
	}
	next, err := d.nextTerm(ctx)
	if err != nil {
		return nil, err
	}
	if d.stoppedFirst(prev, next) {
		d.logf("preemption hand-over took %v from %s's stop (%v after the join); token %d -> %d",
			next.l.Acquired.Sub(prev.stoppedAt).Round(time.Microsecond), prev.cand.name,
			next.l.Acquired.Sub(joined).Round(time.Millisecond), prev.l.Token, next.l.Token)
	}
	return next, nil
}

// handOver asks, as `leasehold handover --to` does, the leader to hand
// over to the other priority-10 candidate, which does not preempt back.
func (d *demo) handOver(ctx context.Context, prev *term) (*term, error) {
	to := "candidate-5"
	if prev.cand.name == to {
		to = "candidate-4"
	}
	d.logf("an operator asks for a handover to %s (leasehold handover --to %s)", to, to)
	asked := time.Now()
	if err := d.requestHandover(ctx, to); err != nil {
		return nil, err
	}
	next, err := d.nextTerm(ctx)
	if err != nil {
		return nil, err
	}
	if next.cand.name != to {
		d.logf("BUG: %s leads, not %s", next.cand.name, to)
	}
	if d.stoppedFirst(prev, next) {
		d.logf("planned hand-over took %v from %s's stop (%v after the request); token %d -> %d",
			next.l.Acquired.Sub(prev.stoppedAt).Round(time.Microsecond), prev.cand.name,
			next.l.Acquired.Sub(asked).Round(time.Millisecond), prev.l.Token, next.l.Token)
	}
	return next, nil
}

// requestHandover asks the leader to hand over to the candidate to, from
// an elector of its own (a request and a candidacy of one session would
// be one record), and waits until to leads.
func (d *demo) requestHandover(ctx context.Context, to string) error {
	c, e, err := d.elector(lease.Options{TTL: d.ttl, Identity: "operator"})
	if err != nil {
		return err
	}
	defer closeElector(c, e)
	if _, err := e.RequestHandover(ctx, demoElection, to); err != nil {
		return fmt.Errorf("handover to %s: %w", to, err)
	}
	return nil
}

// stoppedFirst reports whether prev's leader had stopped acting when
// next began, and says BUG if not.
func (d *demo) stoppedFirst(prev, next *term) bool {
	select {
	case <-prev.stopped:
		return true
	default:
		d.logf("BUG: %s still acts as leader after %s started", prev.cand.name, next.cand.name)
		return false
	}
}

func (d *demo) pause(ctx context.Context, dur time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(dur):
	}
}
