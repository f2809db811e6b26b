package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/leasehold/leasehold/lease/shard"
)

// owners tracks which worker leads each shard, as the workers' events say,
// and counts the moves: shards won by a worker other than their last
// leader.
type owners struct {
	mu      sync.Mutex
	by      []string // per shard: its leader, or ""
	last    []string // per shard: its last leader
	moves   int
	changed chan struct{} // closed and replaced on every change
}

func newOwners(shards int) *owners {
	return &owners{by: make([]string, shards), last: make([]string, shards), changed: make(chan struct{})}
}

func (o *owners) event(w string, ev shard.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case ev.Released && o.by[ev.Shard] == w:
		o.by[ev.Shard] = ""
	case !ev.Released:
		if o.last[ev.Shard] != "" && o.last[ev.Shard] != w {
			o.moves++
		}
		o.by[ev.Shard], o.last[ev.Shard] = w, w
	}
	close(o.changed)
	o.changed = make(chan struct{})
}

// report waits until the workers ws lead every shard, evenly, and prints
// each one's count and the moves since the last report.
func (o *owners) report(ctx context.Context, what string, ws []string) error {
	start := time.Now()
	deadline := time.After(30 * time.Second)
	for {
		o.mu.Lock()
		counts, ok := o.balanced(ws)
		ch, moves := o.changed, o.moves
		if ok {
			o.moves = 0
		}
		o.mu.Unlock()
		if ok {
			fmt.Printf("%-16s balanced in %4d ms, %3d shards moved: %s\n", what+":", time.Since(start).Milliseconds(), moves, counts)
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("%s: not balanced after 30 s: %s", what, counts)
		}
	}
}

// balanced reports whether ws lead every shard, ⌊M/N⌋ or ⌈M/N⌉ each, and
// their counts. Under o.mu.
func (o *owners) balanced(ws []string) (string, bool) {
	n := map[string]int{}
	for _, w := range o.by {
		n[w]++
	}
	lo, hi := len(o.by)/len(ws), (len(o.by)+len(ws)-1)/len(ws)
	ok, total := true, 0
	var parts []string
	for _, w := range ws {
		parts = append(parts, fmt.Sprintf("%s=%d", w, n[w]))
		ok = ok && n[w] >= lo && n[w] <= hi
		total += n[w]
	}
	return strings.Join(parts, " "), ok && total == len(o.by)
}
