package lease

import (
	"context"
	"sync"
)

// slots bounds the election calls in flight at once (maxElectionCalls),
// and gives a free slot to an urgent call before any other waiting: one
// that completes an acquisition (core.Action.Urgent), so that a key
// handed or freed to this elector is taken up while a thousand campaigns
// started meanwhile wait for their first calls. Calls of one kind get
// slots in the order they asked.
type slots struct {
	mu      sync.Mutex
	free    int
	urgent  []chan struct{} // waiting urgent calls, oldest first
	waiting []chan struct{} // waiting other calls, oldest first
	onWait  func()          // if set, called once a call is in line (for tests)
}

func newSlots(n int) *slots { return &slots{free: n} }

// acquire waits for a slot, urgent or not, until ctx ends; it reports
// whether it has one, which the caller must then release.
func (s *slots) acquire(ctx context.Context, urgent bool) bool {
	s.mu.Lock()
	if s.free > 0 && (urgent || len(s.urgent) == 0) {
		s.free--
		s.mu.Unlock()
		return true
	}
	ch := make(chan struct{})
	q := &s.waiting
	if urgent {
		q = &s.urgent
	}
	*q = append(*q, ch)
	s.mu.Unlock()
	if s.onWait != nil {
		s.onWait()
	}
	select {
	case <-ch:
		return true
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range *q {
		if c == ch {
			*q = append((*q)[:i], (*q)[i+1:]...)
			return false
		}
	}
	// Granted as ctx ended: give the slot on.
	s.releaseLocked()
	return false
}

// release gives a slot back: to the oldest urgent call waiting, else to
// the oldest other, else to the pool.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked()
}

func (s *slots) releaseLocked() {
	for _, q := range []*[]chan struct{}{&s.urgent, &s.waiting} {
		if len(*q) > 0 {
			close((*q)[0])
			(*q)[0] = nil
			*q = (*q)[1:]
			return
		}
	}
	s.free++
}
