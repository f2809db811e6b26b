package backends

import (
	"bytes"
	"context"
	"errors"
	"fmt"
)

// Differs reports whether r and o show different states of the leader
// key: another Token or another Value. It is the sense in which Wait
// returns "when the key differs from known". Revision, Owner and Election
// are not compared.
func (r Record) Differs(o Record) bool {
	return r.Token != o.Token || !bytes.Equal(r.Value, o.Value)
}

// Canceled is for adapters classifying an error: it returns nil while ctx
// is live, and otherwise an error wrapping both ErrCanceled and ctx.Err(),
// the class every method must return when its ctx ended first. An adapter
// checks it before any other class, as a call cut short by its context
// fails with whatever the client saw at that moment.
func Canceled(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrCanceled, ctx.Err())
}

// CanceledAfter is Canceled for a call that failed with err: if ctx ended,
// the error also names what the client saw last (as text only, so that no
// class err may wrap leaks into a canceled call's), unless that is only
// the context's end.
func CanceledAfter(ctx context.Context, err error) error {
	cerr := Canceled(ctx)
	if cerr == nil || err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return cerr
	}
	return fmt.Errorf("%w (the store call failed with: %v)", cerr, err)
}
