package trace

import (
	"maps"
	"strings"
	"sync"
	"time"
)

// Tally is a Recorder that only counts calls, by operation, for runs
// too long to keep every event. It is safe for concurrent use.
type Tally struct {
	mu  sync.Mutex
	ops map[string]int
}

// Record implements Recorder.
func (t *Tally) Record(_, op string, _ time.Time, _ error) {
	t.mu.Lock()
	if t.ops == nil {
		t.ops = map[string]int{}
	}
	t.ops[op]++
	t.mu.Unlock()
}

// Snapshot returns the counts so far, by operation.
func (t *Tally) Snapshot() Counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.ops)
}

// Counts are calls by operation (Event.Op).
type Counts map[string]int

// Sub returns c − o, without the operations whose count did not change.
func (c Counts) Sub(o Counts) Counts {
	d := Counts{}
	for op, n := range c {
		if n != o[op] {
			d[op] = n - o[op]
		}
	}
	return d
}

// Requests returns the calls that went to the store: every operation but
// the notifications ("notify", "notify roster").
func (c Counts) Requests() int {
	n := 0
	for op, k := range c {
		if !strings.HasPrefix(op, "notify") {
			n += k
		}
	}
	return n
}
