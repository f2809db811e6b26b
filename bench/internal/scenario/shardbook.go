package scenario

import (
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/leasehold/leasehold/lease/shard"
)

// maxShardMembers bounds a group's members in the shards scenario: a
// shard's holders are a bit set of them.
const maxShardMembers = 16

// book records the events of every member of one group, as each member's
// reader receives them, in counts that a check reads in O(members): who
// holds each shard, how many each member holds, and, since the last mark,
// the acquisitions, the releases by reason, and the longest a shard went
// without a holder between a release and the next acquisition. It is
// safe for concurrent use.
type book struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at each event
	holders []uint16      // per shard: the members holding it, a bit each
	owned   []int         // per member: the shards it holds
	unowned int           // shards with no holder
	multi   int           // shards with more than one holder
	freed   []time.Time   // per shard without a holder: when its last holder released it

	acquires []int // per member, since the mark
	releases map[string]int
	maxGap   time.Duration
}

// newBook returns the book of a group of m shards and n members.
func newBook(n, m int) *book {
	return &book{changed: make(chan struct{}), holders: make([]uint16, m), owned: make([]int, n), acquires: make([]int, n), unowned: m,
		freed: make([]time.Time, m), releases: map[string]int{}}
}

// record takes one event of member i.
func (b *book) record(i int, ev shard.Event) {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	s, bit := ev.Shard, uint16(1)<<i
	before := bits.OnesCount16(b.holders[s])
	if ev.Released {
		b.holders[s] &^= bit
		b.owned[i]--
		b.releases[ev.Reason]++
		if b.holders[s] == 0 {
			b.freed[s] = now
		}
	} else {
		b.holders[s] |= bit
		b.owned[i]++
		b.acquires[i]++
		if before == 0 && !b.freed[s].IsZero() {
			b.maxGap = max(b.maxGap, now.Sub(b.freed[s]))
		}
		b.freed[s] = time.Time{}
	}
	b.count(before, bits.OnesCount16(b.holders[s]))
	close(b.changed)
	b.changed = make(chan struct{})
}

// count updates the unowned and multi counts for a shard whose holders
// went from before to after in number.
func (b *book) count(before, after int) {
	step := func(k, d int) {
		switch {
		case k == 0:
			b.unowned += d
		case k > 1:
			b.multi += d
		}
	}
	step(before, -1)
	step(after, 1)
}

// mark starts a new phase: the acquisitions, releases and longest gap
// count from now.
func (b *book) mark() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.acquires, b.releases, b.maxGap = make([]int, len(b.owned)), map[string]int{}, 0
}

// phase returns the acquisitions by member, releases by reason and
// longest gap since the mark.
func (b *book) phase() ([]int, map[string]int, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	rel := map[string]int{}
	for k, v := range b.releases {
		rel[k] = v
	}
	return slices.Clone(b.acquires), rel, b.maxGap
}

// balanced reports whether members ms (indices) alone hold every shard,
// one holder each, ⌊M/len(ms)⌋ or ⌈M/len(ms)⌉ apiece. Under b.mu.
func (b *book) balanced(ms []int) bool {
	m := len(b.holders)
	lo, hi := m/len(ms), (m+len(ms)-1)/len(ms)
	total := 0
	for _, i := range ms {
		if b.owned[i] < lo || b.owned[i] > hi {
			return false
		}
		total += b.owned[i]
	}
	return b.unowned == 0 && b.multi == 0 && total == m
}

// heldBy reports whether every shard has a holder among members ms.
// Under b.mu; O(M).
func (b *book) heldBy(ms []int) bool {
	var set uint16
	for _, i := range ms {
		set |= 1 << i
	}
	for _, h := range b.holders {
		if h&set == 0 {
			return false
		}
	}
	return true
}

// await waits until cond (called under b.mu) holds, checked at each
// event, for up to timeout, and returns how long it waited.
func (b *book) await(what string, timeout time.Duration, cond func() bool) (time.Duration, error) {
	start := time.Now()
	deadline := time.After(timeout)
	for {
		b.mu.Lock()
		ok, ch := cond(), b.changed
		b.mu.Unlock()
		if ok {
			return time.Since(start), nil
		}
		select {
		case <-ch:
		case <-deadline:
			b.mu.Lock()
			defer b.mu.Unlock()
			return time.Since(start), fmt.Errorf("%s: not within %v: held %v, %d unowned, %d with two holders", what, timeout,
				b.owned, b.unowned, b.multi)
		}
	}
}
