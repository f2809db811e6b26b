// Package turn lets the stores of one benchmark run take turns on the
// machine: their runs go at once, but only one store measures at a time,
// so that only their pauses overlap.
package turn

import "sync"

// Lock is the turn the stores of one run share. The contract:
//
//   - A paced scenario holds the turn (Do) for each measured section only:
//     from the release, write, pass or round trip that starts a sample
//     (and the store counts read just before it) to the successor's win or
//     the notification that ends it. It idles (scenario.Pace) without the
//     turn, so that while one store idles another measures.
//   - A scenario, or a part of one, that loads the machine or measures
//     over a window (a herd of a thousand sessions, a wait for the store
//     to be quiet, a background rate) holds the turn for all of it.
//   - What a store does outside its turn is its own background: renewals,
//     a waiter joining a line, a counts read after a pause. It may overlap
//     another store's measurement; a store's counters count only its own
//     traffic.
//   - Do does not nest: f must not call Do on the same Lock.
//
// A waiter that has waited more than a millisecond is served in the order
// it came (sync.Mutex's starvation mode). A nil *Lock is no lock: Do just
// runs f, for a store that has the machine to itself. The zero Lock is
// ready; it is safe for concurrent use.
type Lock struct {
	mu sync.Mutex
}

// Do runs f holding the turn and returns f's error.
func (l *Lock) Do(f func() error) error {
	if l != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	return f()
}
