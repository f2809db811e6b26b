package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// signalCause is the cause of the context notifySignals cancels: the
// signal that arrived.
type signalCause struct{ sig syscall.Signal }

func (s signalCause) Error() string { return s.sig.String() + " received" }

// notifySignals returns a context cancelled, with a signalCause, on the
// first SIGINT or SIGTERM (signal.NotifyContext's cause names the signal
// only in words).
func notifySignals(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			cancel(signalCause{s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel(nil) }
}

// interruptedCode is the exit code of a command stopped by ctx: 128 plus
// the signal's number, as a shell reports it (130 for SIGINT, 143 for
// SIGTERM), or 1 if ctx ended for another reason.
func interruptedCode(ctx context.Context) int {
	var s signalCause
	if errors.As(context.Cause(ctx), &s) {
		return 128 + int(s.sig)
	}
	return 1
}
