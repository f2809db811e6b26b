package main

import (
	"context"
	"time"
)

// script runs the demo's story and prints what happens.
func (d *demo) script(ctx context.Context, ttl time.Duration) error {
	within := 3*ttl + 5*time.Second
	first, err := d.nextTerm(ctx, within)
	if err != nil {
		return err
	}
	d.pause(ctx, 500*time.Millisecond)

	d.logf("killing %s: its connection to etcd is cut, it does not resign", first.cand.name)
	killed := time.Now()
	first.cand.crash()
	second, err := d.nextTerm(ctx, within)
	if err != nil {
		return err
	}
	crashTook := second.l.Acquired.Sub(killed)
	d.logf("crash hand-over took %v (TTL %v); token %d -> %d", crashTook.Round(time.Millisecond), ttl, first.l.Token, second.l.Token)
	select {
	case <-first.stopped:
		d.logf("%s had stopped acting %v after the cut, %v before %s started",
			first.cand.name, first.stoppedAt.Sub(killed).Round(time.Millisecond),
			second.l.Acquired.Sub(first.stoppedAt).Round(time.Millisecond), second.cand.name)
	default:
		d.logf("BUG: %s still acts as leader", first.cand.name)
	}

	d.logf("%s was only paused, wakes up and writes with its old token %d:", first.cand.name, first.l.Token)
	if err := d.write(first.cand.name, first.l.Token); err != nil {
		d.logf("guarded resource rejects it: %v", err)
	} else {
		d.logf("BUG: the guarded resource accepted a stale write")
	}
	d.pause(ctx, 300*time.Millisecond)

	d.logf("%s resigns gracefully", second.cand.name)
	resigned := time.Now()
	second.cand.stop()
	third, err := d.nextTerm(ctx, within)
	if err != nil {
		return err
	}
	d.logf("resign hand-over took %v; token %d -> %d", third.l.Acquired.Sub(resigned).Round(time.Microsecond), second.l.Token, third.l.Token)
	d.pause(ctx, 300*time.Millisecond)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.logf("done: the guarded resource accepted %d writes; highest token %d", d.accepted, d.guard.Highest())
	return nil
}

func (d *demo) pause(ctx context.Context, dur time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(dur):
	}
}
