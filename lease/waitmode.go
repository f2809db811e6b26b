package lease

import (
	"fmt"

	"github.com/leasehold/leasehold/backends"
)

// WaitMode says how a candidate waits while another holds the leader key
// (Options.Wait). Whatever the mode, leadership is the compare-and-swap
// create of the leader key: tokens, guarantees and observers are the
// same, and candidates of both modes may share an election safely (those
// in key mode simply do not wait in line).
type WaitMode int

const (
	// WaitAuto is the default: WaitQueue if the store implements
	// backends.Queuer, WaitKey otherwise.
	WaitAuto WaitMode = iota

	// WaitQueue is the ordered-queue mode. A candidate that finds the key
	// free creates it at once; one that finds it held takes a place in a
	// queue in the store, bound to its session, and watches only the entry
	// just ahead of it, as etcd's concurrency.Election and Curator do;
	// only the head of the queue watches the leader key. A release then
	// wakes one waiter, not all of them, at the cost of one more write and
	// read per waiting campaign (see the herd figures in
	// docs/benchmarks.md). New fails if the store does not implement
	// backends.Queuer.
	WaitQueue

	// WaitKey is key mode: every waiting candidate watches the leader key,
	// so a release wakes all of them and all but one go back to waiting.
	WaitKey
)

var waitModeNames = [...]string{"auto", "queue", "key"}

// String returns "auto", "queue" or "key".
func (m WaitMode) String() string {
	if m < 0 || int(m) >= len(waitModeNames) {
		return fmt.Sprintf("WaitMode(%d)", int(m))
	}
	return waitModeNames[m]
}

// waitMode resolves mode for store: it returns the mode in effect (never
// WaitAuto) and, in queue mode, the store's Queuer. It fails with an error
// wrapping ErrInvalidOption for a mode that is none of the constants, and
// for WaitQueue on a store without a queue.
func waitMode(mode WaitMode, store backends.Driver) (WaitMode, backends.Queuer, error) {
	q, ok := store.(backends.Queuer)
	switch {
	case mode == WaitKey, mode == WaitAuto && !ok:
		return WaitKey, nil, nil
	case mode == WaitAuto, mode == WaitQueue && ok:
		return WaitQueue, q, nil
	case mode == WaitQueue:
		return 0, nil, fmt.Errorf("lease: Options.Wait %v: the %s store does not implement backends.Queuer: %w", mode, store.Name(), ErrInvalidOption)
	}
	return 0, nil, fmt.Errorf("lease: Options.Wait %v must be WaitAuto, WaitQueue or WaitKey: %w", mode, ErrInvalidOption)
}
