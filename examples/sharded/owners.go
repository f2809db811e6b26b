package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// owners tracks which worker serves each shard, as the workers report it.
type owners struct {
	mu      sync.Mutex
	by      map[int]string
	changed chan struct{} // closed and replaced on every change
}

func (o *owners) set(shard int, w string) { o.update(func() { o.by[shard] = w }) }

func (o *owners) clear(shard int, w string) {
	o.update(func() {
		if o.by[shard] == w {
			delete(o.by, shard)
		}
	})
}

func (o *owners) update(f func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f()
	if o.changed != nil {
		close(o.changed)
		o.changed = nil
	}
}

// await waits until all n shards have an owner other than not.
func (o *owners) await(ctx context.Context, n int, not string, d time.Duration) error {
	deadline := time.After(d)
	for {
		o.mu.Lock()
		ok := len(o.by) == n
		for _, w := range o.by {
			ok = ok && w != not
		}
		if o.changed == nil {
			o.changed = make(chan struct{})
		}
		ch := o.changed
		o.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("shards not all owned after %v: %v", d, o.counts())
		}
	}
}

func (o *owners) counts() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := map[string]int{}
	for _, w := range o.by {
		c[w]++
	}
	return c
}
