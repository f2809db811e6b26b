package shard

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/leasehold/leasehold/lease"
)

// Group is this member's part in a group of shards: the shards it holds
// and its membership. It is safe for concurrent use.
type Group struct {
	name    string
	e       *lease.LeaseElector
	opts    Options
	events  chan Event
	inbox   chan func(*loop) // reports of the group's goroutines to its loop
	joined  chan error       // one answer: nil once this member is in the roster, or why not
	done    chan struct{}    // closed when the group has ended (Leave)
	leave   chan struct{}    // closed by the first Leave
	abort   chan struct{}    // closed when a Leave's ctx ends
	handing chan struct{}    // a token per handover under way (handOver)
	once    sync.Once

	mu    sync.Mutex
	owned map[int]bool
	err   error // why the group ended, if not by Leave
}

// Join makes this elector's member a member of group and starts taking its
// share of the group's shards: it campaigns for the group's members
// election (MembersElection), with its Weight and the group's Shards in
// its record's labels (WeightLabel, ShardsLabel, merged over the
// elector's Options.Labels), follows that election's roster, and campaigns
// for, holds and hands over shards as the assignment says. It returns
// once the member's record is in the roster, or fails when ctx ends
// first, after it has left the group again. Events reports every shard
// this member wins and loses.
//
// Join fails at once with an error wrapping lease.ErrInvalidOption that
// names the field and its range when an option is out of range, the
// elector is nil, or group makes an invalid election name
// (backends.ValidateElection); and with the error of the members
// campaign if it fails for good (its labels too many for the elector's,
// the store's refusal).
//
// A member whose record gives another ShardsLabel, or a weight out of
// range, is left out of the assignment by the others, which log it at
// Error: it does not take part, and campaigns for nothing. The member IDs
// are the electors' identities (lease.Options.Identity), which must be
// unique in the group.
func Join(ctx context.Context, e *lease.LeaseElector, group string, opts Options) (*Group, error) {
	if e == nil {
		return nil, fmt.Errorf("shard: join %q: elector is nil: %w", group, lease.ErrInvalidOption)
	}
	if err := opts.validate(group); err != nil {
		return nil, err
	}
	g := &Group{name: group, e: e, opts: opts.withDefaults(e), events: make(chan Event),
		inbox: make(chan func(*loop), 64), joined: make(chan error, 1), done: make(chan struct{}),
		leave: make(chan struct{}), abort: make(chan struct{}), owned: map[int]bool{},
		handing: make(chan struct{}, maxHandingOver)}
	go g.run()
	select {
	case err := <-g.joined:
		if err == nil {
			return g, nil
		}
		g.Close()
		return nil, err
	case <-ctx.Done():
		g.Close()
		return nil, fmt.Errorf("shard: join %q: %w", group, context.Cause(ctx))
	}
}

// labels are the labels of this member's record in the members roster.
func (g *Group) labels() map[string]string {
	return map[string]string{WeightLabel: strconv.Itoa(g.opts.Weight), ShardsLabel: strconv.Itoa(g.opts.Shards)}
}

// Events reports each shard this member wins (Released false) and each
// it loses (Released true), in order per shard. Events are never dropped
// and the group never waits for the reader: they queue until read. The
// channel is closed after the last Released, once the group has ended;
// read it until then, as its goroutine ends only after.
func (g *Group) Events() <-chan Event { return g.events }

// Owned returns the shards this member holds, in increasing order.
func (g *Group) Owned() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]int, 0, len(g.owned))
	for s := range g.owned {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Leave ends this member's membership gracefully: it ends its members
// campaign first, so that the others assign its shards among themselves
// and campaign for them, cancels its own campaigns, and hands each shard
// it holds to its new owner as soon as that one waits in the shard's
// election (no Settle). When ctx ends, it resigns the shards it still
// holds. It returns once every shard is handed over or resigned and the
// group's goroutines are done, with nil, or with the error that ended the
// group before (the elector closed). Leave and Close may be called more
// than once and at once; each waits for the end.
func (g *Group) Leave(ctx context.Context) error {
	g.once.Do(func() { close(g.leave) })
	select {
	case <-g.done:
	case <-ctx.Done():
		g.stop()
		<-g.done
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// Close leaves the group at once: it resigns every shard this member
// holds without handing it over, so each goes to the next in line or to
// the first of its new owner's campaign, within a round trip of the
// others seeing this member leave. It returns as Leave does.
func (g *Group) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return g.Leave(ctx)
}

// stop closes abort once: the Leave's ctx ended.
func (g *Group) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.abort:
	default:
		close(g.abort)
	}
}

// setOwned records that this member holds s or not, and reports the count.
func (g *Group) setOwned(s int, holds bool) {
	g.mu.Lock()
	if holds {
		g.owned[s] = true
	} else {
		delete(g.owned, s)
	}
	n := len(g.owned)
	g.mu.Unlock()
	g.opts.Metrics.Owned(g.name, n)
}
