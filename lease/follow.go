package lease

import (
	"context"
	"time"

	"github.com/leasehold/leasehold/lease/internal/core"
)

// follower carries out the steps of a core.Follower for Observe,
// ObserveCandidates and followRoster: the Follower decides, and these
// functions touch the store, one attempt each.
type follower[K any] struct {
	// read reads the state afresh; run bounds it by RequestTimeout.
	read func(context.Context) (K, error)
	// wait waits for the state to change from a known one.
	wait func(context.Context, K) (K, error)
	// older, if set, tells a wait's answer that is older than the state
	// known, which is then read again, not shown (core.Follower.Older).
	older func(known, got K) bool
}

// run follows the state until ctx ends or the store refuses for good, and
// returns the permanent error (nil if ctx ended). It calls seen, on its own
// goroutine, with every state the Follower takes as known: the first read
// and each change after it, and the state read again after an error.
func (fl follower[K]) run(ctx context.Context, e *LeaseElector, seen func(K)) error {
	f := core.NewFollower[K](e.opts.config())
	if fl.older != nil {
		f.Older(fl.older)
	}
	for ctx.Err() == nil {
		s := f.Next(time.Now())
		switch s.Kind {
		case core.FollowStop:
			return s.Err
		case core.FollowPause:
			e.pause(ctx, time.Until(s.At))
			continue
		}
		k, err := fl.step(ctx, e.opts.RequestTimeout, s)
		if f.Done(time.Now(), s.Op, k, err) {
			seen(k)
		}
	}
	return nil
}

// step carries out a read, bounded by timeout, or a wait.
func (fl follower[K]) step(ctx context.Context, timeout time.Duration, s core.FollowStep[K]) (K, error) {
	if s.Kind == core.FollowWait {
		return fl.wait(ctx, s.Known)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return fl.read(ctx)
}

// pause waits for d, or until ctx ends.
func (e *LeaseElector) pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
