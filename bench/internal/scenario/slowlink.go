package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
)

// SlowLinkPlan sizes a slow-link run.
type SlowLinkPlan struct {
	// Cycles is the number of delay cycles.
	Cycles int
	// Latency is the delay added to the leader's store→client direction,
	// for Hold; losses are still counted for Tail after it is removed.
	Latency, Hold, Tail time.Duration
	// Settle is the pause before each cycle, for every candidate to wait.
	Settle time.Duration
}

// SlowLinkResult is the outcome of a slow-link run of one library.
type SlowLinkResult struct {
	// Cycles were run; Losses is how many lost leadership.
	Cycles, Losses int
	// LossAfter is, per loss, the delay's start to the first sign of it:
	// the library's own signal (cand.Loser) or another candidate leading.
	LossAfter []time.Duration
	// Takeover is, per loss with both seen, the library's own signal to
	// another candidate leading.
	Takeover []time.Duration
}

// slowLinkCandidates is how many candidates a slow-link run has.
const slowLinkCandidates = 3

// SlowLink runs three candidates of lib for one election, each on its own
// env.Link to st. Each cycle delays the current leader's link for p.Hold
// and counts the cycle lost if, by p.Tail after, the leader's library
// said its leadership ended or another candidate led.
func SlowLink(st *env.Store, lib cand.Lib, p SlowLinkPlan, o cand.Opts) (SlowLinkResult, error) {
	var r SlowLinkResult
	ctx, cancel := context.WithCancel(context.Background())
	slots := make([]*slot, slowLinkCandidates)
	events := make(chan slotEvent, 16)
	election := fmt.Sprintf("slow-%d", time.Now().UnixNano())
	for i := range slots {
		k, err := env.NewLink(st)
		if err != nil {
			cancel()
			return r, err
		}
		defer k.Close() // after the candidates stopped: they resign through it
		slots[i] = &slot{i: i, link: k, kick: make(chan int, 4)}
	}
	done := make(chan struct{})
	defer func() { cancel(); <-done }()
	go func() {
		defer close(done)
		runSlots(ctx, slots, lib, election, o, events)
	}()
	w, err := awaitWin(events)
	if err != nil {
		return r, err
	}
	for range p.Cycles {
		if w, err = slowCycle(slots, w, events, p, &r); err != nil {
			return r, err
		}
	}
	return r, nil
}

// slowCycle runs one cycle with leader w and returns the leader after it.
func slowCycle(slots []*slot, w slotEvent, events <-chan slotEvent, p SlowLinkPlan, r *SlowLinkResult) (slotEvent, error) {
	if nw, changed := watchEvents(events, w, p.Settle, nil); changed {
		w = nw // lost with no delay at all: not counted
	}
	k := slots[w.slot].link
	t0 := time.Now()
	k.SetDelay(p.Latency)
	hold := time.AfterFunc(p.Hold, func() { k.SetDelay(0) })
	var lostAt time.Time
	nw, changed := watchEvents(events, w, p.Hold+p.Tail, &lostAt)
	hold.Stop()
	k.SetDelay(0)
	r.Cycles++
	if !changed && lostAt.IsZero() {
		return w, nil
	}
	r.Losses++
	if !changed {
		var err error
		if nw, err = awaitWin(events); err != nil {
			return w, err
		}
	}
	first := nw.at
	if !lostAt.IsZero() {
		first = lostAt
		if changed && nw.at.After(lostAt) {
			r.Takeover = append(r.Takeover, nw.at.Sub(lostAt))
		}
	} else {
		select { // no word from the old leader's library: end it
		case slots[w.slot].kick <- w.term:
		default:
		}
	}
	r.LossAfter = append(r.LossAfter, first.Sub(t0))
	return nw, nil
}

// watchEvents watches events for d while w leads. It returns at the first
// win of another candidate, with that win; a loss signal of w is
// recorded in lostAt (if not nil) and watching goes on.
func watchEvents(events <-chan slotEvent, w slotEvent, d time.Duration, lostAt *time.Time) (slotEvent, bool) {
	end := time.After(d)
	for {
		select {
		case ev := <-events:
			switch {
			case ev.lost && ev.slot == w.slot && ev.term == w.term && lostAt != nil && lostAt.IsZero():
				*lostAt = ev.at
			case !ev.lost && (ev.slot != w.slot || ev.term != w.term):
				return ev, true
			}
		case <-end:
			return w, false
		}
	}
}

// awaitWin waits for the next win.
func awaitWin(events <-chan slotEvent) (slotEvent, error) {
	deadline := time.After(waitFor)
	for {
		select {
		case ev := <-events:
			if !ev.lost {
				return ev, nil
			}
		case <-deadline:
			return slotEvent{}, fmt.Errorf("slow link: no leader within %v", waitFor)
		}
	}
}
