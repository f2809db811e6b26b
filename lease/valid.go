package lease

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/fencing"
)

// hold is the holder's deadline of the live session as the elector's loop
// published it for Leadership.Valid and the health handlers. A published
// value never changes: the loop and Valid swap whole values, so that the
// loop's extension of a deadline and Valid's "it passed" cannot both win.
type hold struct {
	epoch    uint64    // the session (core.Machine.Epoch)
	deadline time.Time // carries a monotonic reading: compared with time.Now() only
	passed   bool      // Valid saw the deadline pass: the session must end
}

// publishHold publishes the machine's live session and holder deadline.
// It reports false when Valid had already said that the published
// deadline passed while the machine went on to extend it (a renewal's
// success that came in just before the deadline): the machine is then
// told (Expired), and its actions must be carried out before publishing
// again. A leadership thus never outlives a "no" from Valid.
func (e *LeaseElector) publishHold() bool {
	h := &e.health.hold
	epoch, dl := e.m.Epoch(), e.m.Deadline()
	cur := h.Load()
	switch {
	case epoch == 0:
		h.Store(nil)
	case cur == nil || cur.epoch != epoch:
		h.Store(&hold{epoch: epoch, deadline: dl})
	case dl.Equal(cur.deadline):
	case cur.passed || !h.CompareAndSwap(cur, &hold{epoch: epoch, deadline: dl}):
		e.m.Expired(time.Now(), epoch)
		return false
	}
	return true
}

// notLeadership is the context of a Leadership that no Campaign returned:
// cancelled from the start.
var notLeadership = func() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(fmt.Errorf("lease: %w: %w", ErrNotLeadership, ErrLost))
	return ctx
}()

// Valid reports, at the moment it is called, whether the leadership still
// holds: nil if it does, otherwise an error wrapping ErrLost and the cause
// (the one context.Cause(l.Context()) gives, or ErrRenewDeadline if the
// clock passed the deadline first). It reads
// the monotonic clock and compares it with the holder's deadline of the
// session the leadership is bound to (the send time of the last successful
// renewal + Hold: see Timing in the package doc), so it says no at once
// after the process was paused (SIGSTOP, a long GC, a frozen VM) past that
// deadline, even before the elector's goroutine has run again and
// cancelled the context. Call it immediately before each write to a
// resource the leadership protects. Once it has returned an error it
// never returns nil again: the elector ends the leadership promptly, and
// no renewal that was in flight revives it. It does not wait for the
// elector and is cheap (an atomic load and a clock read). It is safe for
// concurrent use.
//
// nil is a promise about the instant of the call, given the package's
// assumptions (clock drift within ClockDrift, a store that does not end
// the session early; see the package doc): no other session can hold the
// key until at least SafetyMargin later. A write that reaches its
// resource within SafetyMargin of the check is therefore safe. The window
// that remains is the time between the check and the write's arrival: a
// pause or a delay there longer than SafetyMargin lets the write arrive
// after a successor began. Only a fencing token (Token, checked by the
// resource: package fencing, or GuardedPut) closes that window.
func (l *Leadership) Valid() error {
	if l.e == nil {
		return l.Err()
	}
	h := &l.e.health.hold
	for {
		p := h.Load()
		if err := l.Err(); err != nil {
			return err
		}
		switch {
		case p == nil || p.epoch != l.epoch:
			return l.lostErr(errSessionEnded) // its Lost is on its way
		case p.passed:
			return l.lostErr(ErrRenewDeadline)
		case time.Now().Before(p.deadline):
			return nil
		case h.CompareAndSwap(p, &hold{epoch: p.epoch, deadline: p.deadline, passed: true}):
			return l.lostErr(ErrRenewDeadline)
		}
		// The loop published meanwhile: look again.
	}
}

// errSessionEnded: Valid found the leadership's session ended before the
// elector had cancelled its context (which will say why).
var errSessionEnded = errors.New("store session ended")

// lostErr is the error of a leadership lost for cause.
func (l *Leadership) lostErr(cause error) error {
	return &lostError{election: l.Election, token: l.Token, cause: cause}
}

// lostError is a leadership's end: it wraps ErrLost and the cause, and is
// formatted only when read, as the context is cancelled on a hand-off's
// path.
type lostError struct {
	election string
	token    fencing.Token
	cause    error
}

func (e *lostError) Error() string {
	return fmt.Sprintf("lease: %q token %d: %v: %v", e.election, e.token, ErrLost, e.cause)
}

func (e *lostError) Unwrap() []error { return []error{ErrLost, e.cause} }

// GuardedPut sets key to value in the store, committed only while this
// term's leader key still holds Token (backends.Driver.GuardedPut): the store
// itself refuses the write of a term that has ended, however late it
// arrives, and the error then wraps backends.ErrNotLeader. It checks Valid
// first and makes no write if the leadership has ended; the error then
// wraps ErrLost. key is a portable name (backends.ValidateElection
// rules); the adapter keeps it apart from the leader keys. It makes one
// attempt: an error that wraps neither backends.ErrNotLeader,
// backends.ErrUnavailable nor ErrLost leaves the outcome unknown.
func (l *Leadership) GuardedPut(ctx context.Context, key string, value []byte) error {
	if l.e == nil {
		return fmt.Errorf("lease: guarded put %q: %w", key, l.Err())
	}
	if err := l.Valid(); err != nil {
		return err
	}
	if err := l.e.store.GuardedPut(ctx, backends.Guarded{Election: l.Election, Token: uint64(l.Token), Key: key, Value: value}); err != nil {
		return fmt.Errorf("lease: guarded put %q: %w", key, err)
	}
	return nil
}
