package lease

import (
	"context"
	"errors"
	"time"
)

// Run campaigns for election and calls fn with a context that is cancelled
// when the leadership is lost or ctx ends. When the leadership is lost, Run
// waits for fn to return and campaigns again. When it is handed over
// (ErrHandover: Leadership.HandOver, a preemption or a request), Run waits
// for fn to return, then resigns, which lets the key go to the target,
// and campaigns again: the target never starts before fn has returned,
// unless fn outlasts SafetyMargin, after which the handover goes on. When fn returns while still
// leading, Run resigns and returns fn's error. When ctx ends, fn's context
// is cancelled, Run waits for fn, resigns, and returns ctx's error.
// Once ctx has ended, Run waits for that resign at most RequestTimeout or
// 5s, whichever is less, so that a store it cannot reach
// does not hold a stopping caller for a long TTL's RequestTimeout; the
// elector goes on with the resign until Close, which releases the key
// with its session.
//
// fn runs only while this elector leads (as far as it can know; see the
// package doc) and never twice at once. Run checks l.Valid just before it
// calls fn, so fn is not called for a leadership that a pause between the
// campaign's win and the call already ended; fn must still check l.Valid
// immediately before each write it makes, since its context can lag the
// deadline after a pause. Whether fn returned because the leadership ended
// is judged by l.Valid too. Each call of fn starts after the leadership
// began and its return is the only "stopped" signal, so there is no stop
// without a start.
//
// If fn panics, or calls runtime.Goexit (as t.FailNow does), Run resigns
// before the panic or the exit goes on: fn's context is cancelled with
// ErrResigned and the key is deleted, so a waiting candidate leads within
// a hand-off, not a TTL. Run waits for the resign as long as after ctx
// ends (the deletion goes on after that; a failure is logged), and does
// not recover the panic, which goes on with its own value.
func (e *LeaseElector) Run(ctx context.Context, election string, fn func(ctx context.Context, l *Leadership) error) error {
	if err := e.check("run"); err != nil {
		return err
	}
	for {
		l, err := e.Campaign(ctx, election)
		if err != nil {
			return err
		}
		var ferr error
		if l.Valid() == nil {
			ferr = e.lead(ctx, l, fn)
		}
		if errors.Is(l.Err(), ErrHandover) && ctx.Err() == nil {
			// Handed over: fn has returned, so let the key go now
			// (Resign completes the handover) and campaign again.
			rctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
			_ = l.Resign(rctx)
			cancel()
			continue
		}
		if l.Valid() != nil && ctx.Err() == nil {
			// Lost: the elector ends the leadership at once (Valid
			// never says no to a leadership that goes on); wait for
			// that, so that the campaign does not find it still held.
			<-l.Context().Done()
			continue
		}
		rctx, cancel := e.stopResign(ctx)
		rerr := l.Resign(rctx)
		cancel()
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return errors.Join(ferr, rerr)
	}
}

// lead runs fn with a context that ends with the leadership or with ctx.
// If fn does not return (it panics, or calls runtime.Goexit), lead
// resigns, which cancels fn's context, before the panic or the exit goes
// on.
func (e *LeaseElector) lead(ctx context.Context, l *Leadership, fn func(context.Context, *Leadership) error) error {
	lctx, cancel := context.WithCancelCause(l.Context())
	defer cancel(nil)
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	defer stop()
	returned := false
	defer func() {
		if !returned {
			e.resignAfter(ctx, l)
		}
	}()
	err := fn(lctx, l)
	returned = true
	return err
}

// stopResignWait bounds how long Run waits for its last resign, after
// ctx ended or fn panicked, when RequestTimeout is longer.
const stopResignWait = 5 * time.Second

// stopResign returns the context of Run's last resign: not ended by ctx,
// and bounded by RequestTimeout or stopResignWait, whichever is less.
func (e *LeaseElector) stopResign(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), min(e.opts.RequestTimeout, stopResignWait))
}

// resignAfter resigns l as Run's last resign does, even if ctx ended, and
// logs a failure: Run has no error to return it with.
func (e *LeaseElector) resignAfter(ctx context.Context, l *Leadership) {
	rctx, cancel := e.stopResign(ctx)
	defer cancel()
	if err := l.Resign(rctx); err != nil {
		e.log.Warn("resign after Run's fn panicked or exited", "election", l.Election, "err", err)
	}
}
