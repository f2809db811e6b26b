package lease

import (
	"fmt"
)

// WaitMode says how a candidate waits while another holds the leader key
// (Options.Wait). Whatever the mode, leadership is the compare-and-swap
// create of the leader key: tokens, guarantees and observers are the
// same, and candidates of both modes may share an election safely (those
// in key mode simply do not wait in line).
type WaitMode int

const (
	// WaitAuto is the default: WaitQueue, as every store keeps a queue.
	WaitAuto WaitMode = iota

	// WaitQueue is the ordered-queue mode. A candidate that finds the key
	// free creates it at once; one that finds it held takes a place in a
	// queue in the store, bound to its session, and watches only the entry
	// just ahead of it, as etcd's concurrency.Election and Curator do;
	// only the head of the queue watches the leader key. A release then
	// wakes one waiter, not all of them, at the cost of one more write and
	// read per waiting campaign (see the herd figures in
	// docs/benchmarks.md).
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

// waitMode resolves mode: it returns the mode in effect (never WaitAuto,
// which is WaitQueue, as every store keeps a queue). It fails with an
// error wrapping ErrInvalidOption for a mode that is none of the
// constants.
func waitMode(mode WaitMode) (WaitMode, error) {
	switch mode {
	case WaitKey:
		return WaitKey, nil
	case WaitAuto, WaitQueue:
		return WaitQueue, nil
	}
	return 0, fmt.Errorf("lease: Options.Wait %v must be WaitAuto, WaitQueue or WaitKey: %w", mode, ErrInvalidOption)
}
