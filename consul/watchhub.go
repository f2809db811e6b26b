package consul

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// hub runs the blocking query that every WatchSet of a Store shares: one
// query at a time, in a goroutine that runs while a set has requests
// pending, and ends when the last set closes.
type hub struct {
	s *store

	mu         sync.Mutex
	keyQueries int                    // key queries running (see reserve)
	sets       map[*watchSet]struct{} // the open sets
	view       view                   // the last answer of the query
	next       uint64                 // WaitIndex of the next query
	wants      uint64                 // counts want calls
	cancel     context.CancelFunc     // ends the query loop; nil if none runs
	done       chan struct{}          // closed when the query loop returns
}

// listing is the answer of one recursive list of the prefix.
type listing struct {
	pairs    api.KVPairs
	index    uint64
	filtered bool // Consul left out keys the token may not read
	err      error
}

// join adds a set, which starts with the latest view.
func (h *hub) join(w *watchSet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sets == nil {
		h.sets = make(map[*watchSet]struct{})
	}
	h.sets[w] = struct{}{}
	w.view = h.view
}

// leave removes a closed set. After the last one it ends the query loop,
// waits for it, and drops the view: the next set starts afresh.
func (h *hub) leave(w *watchSet) {
	h.mu.Lock()
	delete(h.sets, w)
	if len(h.sets) > 0 {
		h.mu.Unlock()
		return
	}
	h.view, h.next = view{}, 0
	cancel, done := h.cancel, h.done
	if cancel != nil {
		cancel() // under h.mu: apply sees it before a new loop starts
		h.cancel = nil
	}
	h.mu.Unlock()
	if cancel != nil {
		<-done
	}
}

// want starts the query loop if it is not running; a running loop goes
// on for one more round at least.
func (h *hub) want() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wants++
	if h.cancel != nil || len(h.sets) == 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan struct{})
	go h.loop(ctx, h.done)
}

// loop runs queries while a set has requests pending, handing each
// answer to every set.
func (h *hub) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	for {
		h.mu.Lock()
		next, wants := h.next, h.wants
		h.mu.Unlock()
		if !h.apply(ctx, h.list(ctx, next), wants) {
			return
		}
	}
}

// list runs one blocking query on the prefix from index.
func (h *hub) list(ctx context.Context, index uint64) listing {
	q := (&api.QueryOptions{WaitIndex: index, WaitTime: h.s.waitTime}).WithContext(ctx)
	pairs, meta, err := h.s.kv.List(h.s.prefix, q)
	l := listing{pairs: pairs, err: err}
	if err == nil {
		l.index, l.filtered = meta.LastIndex, meta.ResultsFilteredByACLs
	}
	return l
}

// apply hands a query's answer to every set, as a new view or as the
// error that ends their requests, and reports whether to query again: a
// set still has requests pending, or one was made since the query began
// (wants moved on). If not, it marks the loop ended. A loop whose ctx
// ended (the last set left) applies nothing.
func (h *hub) apply(ctx context.Context, l listing, wants uint64) bool {
	err := h.listErr(l)
	h.mu.Lock()
	if ctx.Err() != nil {
		h.mu.Unlock()
		return false
	}
	if err == nil {
		h.view = h.view.next(l)
		h.next = nextIndex(h.next, l.index)
	}
	v := h.view
	sets := make([]*watchSet, 0, len(h.sets))
	for w := range h.sets {
		sets = append(sets, w)
	}
	h.mu.Unlock()
	more := false
	for _, w := range sets {
		more = w.apply(v, err) || more
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case ctx.Err() != nil: // leave ended this loop; another may run
		return false
	case more || h.wants != wants:
		return true
	}
	h.cancel = nil
	return false
}

// listErr classifies a failed query (see streamErr), and a list that
// Consul filtered by the token's ACLs as backends.ErrPermission.
func (h *hub) listErr(l listing) error {
	what := "consul: watch " + h.s.prefix
	switch {
	case l.err == nil && l.filtered:
		return fmt.Errorf("%s: %w: the ACL token may not read every key under the prefix (Consul filtered the list); the watch needs read on all of it", what, backends.ErrPermission)
	case l.err == nil:
		return nil
	}
	return streamErr(what, l.err)
}
