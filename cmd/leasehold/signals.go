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

// stopSignals are the signals that stop leasehold: each ends run's term as
// SIGTERM does. SIGHUP means stop, not reload: the terminal that owned
// leasehold is gone. SIGQUIT gets no goroutine dump (Go's default).
var stopSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT}

// notifySignals returns a context cancelled, with a signalCause, on the
// first of stopSignals (signal.NotifyContext's cause names the signal only
// in words). SIGHUP ignored when leasehold started (nohup) stays ignored:
// Notify would install a handler for it. The others are caught even if
// ignored at start, as a shell's background job has SIGINT and SIGQUIT.
//
// SIGPIPE is caught and dropped, for good: a write to a stdout or stderr
// nobody reads any more (an ssh session without a terminal that hung up)
// then fails with EPIPE, where Go's default would kill leasehold before it
// has stopped the term and resigned. CMD gets the default back at exec.
func notifySignals(parent context.Context) (context.Context, func()) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	for _, s := range stopSignals {
		if s != syscall.SIGHUP || !signal.Ignored(s) {
			signal.Notify(ch, s)
		}
	}
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
// the signal's number, as a shell reports it (129 SIGHUP, 130 SIGINT, 131
// SIGQUIT, 143 SIGTERM), or 1 if ctx ended for another reason.
func interruptedCode(ctx context.Context) int {
	if s, ok := stopSignal(ctx); ok {
		return 128 + int(s)
	}
	return 1
}

// stopSignal returns the stop signal that ended ctx, if one did.
func stopSignal(ctx context.Context) (syscall.Signal, bool) {
	var s signalCause
	if errors.As(context.Cause(ctx), &s) {
		return s.sig, true
	}
	return 0, false
}
