package backends

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// LayoutSegment is the path segment under an adapter's prefix that holds
// its layout marker (see Layout): "~layout". No election name contains
// '~', so the marker never collides with a leader key, and it differs
// from the other segments.
const LayoutSegment = "~layout"

// Layout is the layout marker of one Store's prefix: a key (or node) in
// LayoutSegment whose value is the version, in decimal, of the layout in
// which the adapter keeps its keys under that prefix. An adapter holds
// one Layout per Store, with its store's primitives, and asks it before
// the calls that begin the use of a prefix: NewSession calls Claim; Get
// and List call Check; every other call follows one of them. The
// marker is checked once per Store, and its result kept: a later call
// makes no I/O for it. A marker that holds another version fails those
// calls with an error wrapping ErrLayout, from then on. Layout's methods
// are safe for concurrent use.
type Layout struct {
	// Store names the store kind and Prefix the adapter's prefix, for
	// errors.
	Store, Prefix string
	// Version is the layout version this adapter reads and writes.
	Version int
	// Read reads the marker: its value, and whether it exists. It makes
	// one attempt and classifies its errors.
	Read func(ctx context.Context) (value []byte, found bool, err error)
	// Create creates the marker with value if it is absent, and returns
	// the value the marker holds then: value if it created it, else the
	// one it found. Two Creates at once must both return the winner's
	// value. It makes one attempt and classifies its errors.
	Create func(ctx context.Context, value []byte) (held []byte, err error)

	mu      sync.Mutex
	checked bool  // a read found no marker, or this version's
	claimed bool  // the marker holds this version
	err     error // the marker holds another version: wraps ErrLayout
}

// Check checks the marker for a call that only reads: it returns nil if
// the marker holds Version or is absent, and an error wrapping ErrLayout
// if it holds anything else. Only the first successful check reads.
func (l *Layout) Check(ctx context.Context) error {
	if done, err := l.known(false); done {
		return err
	}
	value, found, err := l.Read(ctx)
	if err != nil {
		return err
	}
	return l.settle(value, !found)
}

// Claim checks the marker for NewSession, writing Version into it if it
// is absent (Create). A store that refuses the write for want of rights
// (ErrPermission) is checked as Check does: a reader's session is left
// to the refusal of its own writes. Only the first successful claim
// writes.
func (l *Layout) Claim(ctx context.Context) error {
	if done, err := l.known(true); done {
		return err
	}
	held, err := l.Create(ctx, []byte(strconv.Itoa(l.Version)))
	switch {
	case errors.Is(err, ErrPermission):
		return l.Check(ctx)
	case err != nil:
		return err
	}
	return l.settle(held, false)
}

// known reports whether the marker's outcome is known for a claim (or a
// check), and that outcome.
func (l *Layout) known(claim bool) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.err != nil:
		return true, l.err
	case claim:
		return l.claimed, nil
	}
	return l.checked, nil
}

// settle records what a read (absent: no marker) or a create found.
func (l *Layout) settle(value []byte, absent bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.err != nil:
	case absent:
		l.checked = true
	case string(value) == strconv.Itoa(l.Version):
		l.checked, l.claimed = true, true
	default:
		l.err = fmt.Errorf("%s: %w: prefix %q holds layout version %.40q, and this build reads and writes version %d: "+
			"use another prefix for this version, or stop every leasehold of the other version and delete the keys under the prefix",
			l.Store, ErrLayout, l.Prefix, value, l.Version)
	}
	return l.err
}
