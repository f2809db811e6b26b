// Package errclass is the adapters' one home of the order in which a
// store client's error is put in a class of package backends: a call cut
// short by its context is ErrCanceled whatever the client saw (see
// backends.CanceledAfter), and otherwise the first class that claims the
// error wraps it. An adapter gives only its store's tests, as Classes.
package errclass

import (
	"context"
	"errors"
	"fmt"

	"github.com/leasehold/leasehold/backends"
)

// Class is one class of errors of package backends (Err, e.g.
// backends.ErrPermission) and the test (Is) of the store's errors in it.
type Class struct {
	Err error
	Is  func(error) bool
}

// Of returns the Class err of the errors that errors.Is matches with one
// of targets.
func Of(err error, targets ...error) Class {
	return Class{Err: err, Is: func(e error) bool {
		for _, t := range targets {
			if errors.Is(e, t) {
				return true
			}
		}
		return false
	}}
}

// Wrap wraps err, the error of a call that ctx bounded, with what and its
// class: ErrCanceled if ctx ended, else the Err of the first of classes
// whose Is reports err, else none (the call's outcome is unknown).
func Wrap(what string, ctx context.Context, err error, classes ...Class) error {
	if cerr := backends.CanceledAfter(ctx, err); cerr != nil {
		return fmt.Errorf("%s: %w", what, cerr)
	}
	for _, c := range classes {
		if c.Is(err) {
			return fmt.Errorf("%s: %w: %w", what, c.Err, err)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// answered are the classes a WatchSet's Change.Err carries as they are.
var answered = []error{backends.ErrCompacted, backends.ErrPermission, backends.ErrUnavailable, backends.ErrCanceled}

// WatchErr returns the error a WatchSet answers for err, an error of its
// stream or of a read, which the adapter classified as classified:
// classified if it wraps ErrCompacted, ErrPermission, ErrUnavailable or
// ErrCanceled, else err wrapped with what as ErrUnavailable: the request
// did nothing, and the caller reads and asks again.
func WatchErr(what string, classified, err error) error {
	for _, class := range answered {
		if errors.Is(classified, class) {
			return classified
		}
	}
	return fmt.Errorf("%s: %w: %w", what, backends.ErrUnavailable, err)
}
