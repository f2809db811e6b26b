package shard

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease"
)

// post hands f to the loop; the loop runs until every goroutine that
// posts has reported done, so it always takes it.
func (g *Group) post(f func(*loop)) { g.inbox <- f }

// work campaigns for shard s until it wins or ctx ends, then holds it
// (hold).
func (g *Group) work(ctx context.Context, s int) {
	l, err := g.e.Campaign(ctx, Election(g.name, s, g.opts.Shards))
	if err != nil {
		cancelled := ctx.Err() != nil
		g.post(func(lp *loop) { lp.campaignEnded(s, err, cancelled) })
		return
	}
	g.post(func(lp *loop) { lp.won(s, l) })
	g.hold(ctx, s, l)
}

// hold reports the end of l, shard s's leadership, once it ends, having
// resigned it if ctx ends first. No goroutine waits meanwhile: a held
// shard costs two callbacks on the contexts, not a goroutine.
func (g *Group) hold(ctx context.Context, s int, l *lease.Leadership) {
	var once sync.Once
	end := func(resign bool) {
		once.Do(func() {
			if resign {
				g.resign(l)
			}
			g.post(func(lp *loop) { lp.lost(s, l) })
		})
	}
	stop := context.AfterFunc(ctx, func() { end(true) })
	context.AfterFunc(l.Context(), func() {
		stop()
		end(false)
	})
}

// resign resigns l, bounded by the elector's TTL, and waits for its end.
func (g *Group) resign(l *lease.Leadership) {
	ctx, cancel := context.WithTimeout(context.Background(), g.e.Options().TTL)
	defer cancel()
	if err := l.Resign(ctx); err != nil {
		g.opts.Logger.Warn("shard resign failed", "group", g.name, "election", l.Election, "err", err)
	}
	<-l.Context().Done()
}

// move hands l, shard s's leadership, over to mv.to: at once if it waits
// in the shard's election, or as soon as it does.
func (g *Group) move(ctx context.Context, s int, l *lease.Leadership, mv *mover) {
	for {
		err := l.AwaitTarget(ctx, mv.to)
		var d time.Duration
		if err == nil {
			d, err = g.handOver(ctx, l, mv.to)
			if errors.Is(err, lease.ErrNoCandidate) && ctx.Err() == nil {
				continue // the target left again: wait for it
			}
		}
		cancelled := ctx.Err() != nil
		g.post(func(lp *loop) { lp.moved(s, l, mv, err, cancelled, d) })
		return
	}
}

// maxHandingOver bounds a member's handovers under way at once. A shard
// has no holder from the start of its handover (its leadership ends
// then) until the pass lands and the new owner hears of it: with all of
// a member's passes sent at once, the last waits behind the others in
// the store. A few at a time, each waits about one handover; the moves
// still go at the new owners' pace, as their campaigns come in.
const maxHandingOver = 4

// handOver hands l over to member to once fewer than maxHandingOver of
// the group's handovers are under way, and reports how long the
// HandOver took.
func (g *Group) handOver(ctx context.Context, l *lease.Leadership, to string) (time.Duration, error) {
	select {
	case g.handing <- struct{}{}:
		defer func() { <-g.handing }()
	case <-ctx.Done():
		return 0, context.Cause(ctx)
	}
	start := time.Now()
	err := l.HandOver(ctx, to)
	return time.Since(start), err
}

// membership campaigns for the group's members election, with this
// member's labels, until ctx ends; whoever leads it does nothing more.
func (g *Group) membership(ctx context.Context) {
	defer g.post(func(lp *loop) { lp.done() })
	for {
		l, err := g.e.Campaign(ctx, MembersElection(g.name), lease.WithLabels(g.labels()))
		switch {
		case ctx.Err() != nil:
			if l != nil {
				g.resign(l)
			}
			return
		case permanent(err):
			g.post(func(lp *loop) { lp.fail(err) })
			return
		case err != nil:
			g.opts.Logger.Warn("shard group members campaign failed; retrying", "group", g.name, "err", err)
			g.pause(ctx)
			continue
		}
		select {
		case <-l.Context().Done():
		case <-ctx.Done():
			g.resign(l)
			return
		}
	}
}

// follow follows the group's members roster until ctx ends, and reports
// each list to the loop.
func (g *Group) follow(ctx context.Context) {
	defer g.post(func(lp *loop) { lp.done() })
	for ctx.Err() == nil {
		ch, err := g.e.ObserveCandidates(ctx, MembersElection(g.name))
		if permanent(err) {
			g.post(func(lp *loop) { lp.fail(err) })
			return
		}
		for cs := range ch {
			g.post(func(lp *loop) { lp.roster(cs) })
		}
		g.pause(ctx)
	}
}

// pause waits the elector's RetryInterval, or until ctx ends.
func (g *Group) pause(ctx context.Context) {
	t := time.NewTimer(g.e.Options().RetryInterval)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// permanent reports whether err ends the group: the elector closed, or
// an option or the store refuses for good.
func permanent(err error) bool {
	return errors.Is(err, lease.ErrClosed) || errors.Is(err, lease.ErrInvalidOption) ||
		errors.Is(err, backends.ErrPermission) || errors.Is(err, backends.ErrTLS) || errors.Is(err, backends.ErrLayout)
}
