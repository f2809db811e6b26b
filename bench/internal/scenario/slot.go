package scenario

import (
	"context"
	"sync"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
)

// slot is one candidate of a slow-link run, remade after each leadership.
type slot struct {
	i    int
	link *env.Link
	// kick ends the leadership of the term sent.
	kick chan int
}

// slotEvent is a slot's win (lost false) or its library's word that the
// leadership of term ended (lost true).
type slotEvent struct {
	slot, term int
	lost       bool
	at         time.Time
}

// runSlots runs every slot until ctx ends.
func runSlots(ctx context.Context, slots []*slot, lib cand.Lib, election string, o cand.Opts, events chan<- slotEvent) {
	var wg sync.WaitGroup
	for _, s := range slots {
		wg.Go(func() { s.run(ctx, lib, election, o, events) })
	}
	wg.Wait()
}

// run campaigns with a new candidate, leads until its library says the
// leadership ended or it is kicked, closes the candidate, and again.
func (s *slot) run(ctx context.Context, lib cand.Lib, election string, o cand.Opts, events chan<- slotEvent) {
	for term := 1; ctx.Err() == nil; term++ {
		c, err := cand.New(lib, s.link.Store, election, o)
		if err == nil {
			closeC := sync.OnceFunc(c.Close)
			stop := context.AfterFunc(ctx, closeC) // zk.Lock's Acquire ignores ctx
			if err = c.Acquire(ctx); err == nil {
				s.lead(ctx, c, term, events)
			}
			stop()
			closeC()
		}
		if err != nil {
			select { // the store refused or the link failed: try again shortly
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// lead reports the win of term and waits for its end.
func (s *slot) lead(ctx context.Context, c cand.Candidate, term int, events chan<- slotEvent) {
	send := func(lost bool) {
		select {
		case events <- slotEvent{slot: s.i, term: term, lost: lost, at: time.Now()}:
		case <-ctx.Done():
		}
	}
	send(false)
	var lost <-chan struct{}
	if l, ok := c.(cand.Loser); ok {
		lost = l.Lost()
	}
	for {
		select {
		case <-lost:
			send(true)
			return
		case k := <-s.kick:
			if k == term {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}
