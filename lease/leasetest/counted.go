package leasetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/lease"
)

// watchCount counts the elections an elector has waited on (WatchKey and
// WatchEntry requests in any of its WatchSets), so that a test can wait for all of them to
// be waiting.
type watchCount struct {
	mu   sync.Mutex
	seen map[string]bool
	more chan struct{} // closed and replaced when seen grows
}

func (c *watchCount) saw(election string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen[election] {
		c.seen[election] = true
		close(c.more)
		c.more = make(chan struct{})
	}
}

// await waits until n elections have been waited on.
func (c *watchCount) await(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		c.mu.Lock()
		got, more := len(c.seen), c.more
		c.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("%d elections waited on after 60 s, want %d", got, n)
		}
	}
}

// counted returns an elector whose store counts its waits.
func (s *suite) counted(t *testing.T, identity string) (*lease.LeaseElector, *watchCount) {
	t.Helper()
	s0, _ := s.h.NewStore(t)
	store := driver.Of(s0)
	c := &watchCount{seen: map[string]bool{}, more: make(chan struct{})}
	wrapped := countingStore{store, c}
	opts := s.base
	opts.Identity = identity
	e, err := lease.New(backends.NewStore(wrapped), opts)
	if err != nil {
		t.Fatalf("lease.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return e, c
}

// countingStore passes every call to the real store it wraps, counting
// the waits in the WatchSets it starts.
type countingStore struct {
	backends.Driver
	c *watchCount
}

func (s countingStore) Watch(deliver func(backends.Change)) backends.WatchSet {
	return countingSet{s.Driver.Watch(deliver), s.c}
}

type countingSet struct {
	backends.WatchSet
	c *watchCount
}

func (s countingSet) Wait(req backends.WatchRequest) {
	if req.Kind != backends.WatchRoster {
		s.c.saw(req.Known.Election)
	}
	s.WatchSet.Wait(req)
}
