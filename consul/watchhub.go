package consul

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/watchset"
)

// hub runs the blocking query that the streams of every WatchSet of a
// Store share: one query at a time, in a goroutine that runs while a
// stream wants it, and ends when the last stream closes.
type hub struct {
	s *store

	mu         sync.Mutex
	keyQueries int                  // key queries running (see reserve)
	streams    map[*stream]struct{} // the open streams
	view       view                 // the last answer of the query
	next       uint64               // WaitIndex of the next query
	cancel     context.CancelFunc   // ends the query loop; nil if none runs
	done       chan struct{}        // closed when the query loop returns
}

// listing is the answer of one recursive list of the prefix.
type listing struct {
	pairs    api.KVPairs
	index    uint64
	filtered bool // Consul left out keys the token may not read
	err      error
}

// loop runs queries while a stream wants them, handing each answer to
// the streams.
//
// Before its first query it checks the layout marker, as Get and List
// do (once per Store, then known): a key read, which Consul refuses with
// a 403 to a token that may not read the prefix, where a list would
// leave the keys out without a word to an anonymous token. A refusal, or
// a prefix of another layout, ends the streams that want the query.
func (h *hub) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	if err := h.s.layout.Check(ctx); err != nil {
		h.apply(ctx, listing{err: err})
		return
	}
	for {
		h.mu.Lock()
		next := h.next
		h.mu.Unlock()
		if !h.apply(ctx, h.list(ctx, next)) {
			return
		}
	}
}

// list runs one blocking query on the prefix from index.
func (h *hub) list(ctx context.Context, index uint64) listing {
	pairs, meta, err := h.s.blockingList(ctx, h.s.prefix, index)
	l := listing{pairs: pairs, err: err}
	if err == nil {
		l.index, l.filtered = meta.LastIndex, meta.ResultsFilteredByACLs
	}
	return l
}

// apply hands a query's answer to the streams that want it, as a new view
// or as the error that ends them, waits until each has taken it and said
// whether it still wants more, and reports whether to query again. If not,
// it marks the loop ended. A loop whose ctx ended (the last stream left)
// applies nothing.
func (h *hub) apply(ctx context.Context, l listing) bool {
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
	var told []*stream
	for st := range h.streams {
		st.poke() // the others keep up, to answer their next requests at once
		if st.want {
			st.err, st.owe = err, err == nil
			told = append(told, st)
		}
	}
	h.mu.Unlock()
	for _, st := range told {
		if err == nil {
			st.await(ctx)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	more := false
	for st := range h.streams {
		more = more || st.want
	}
	switch {
	case ctx.Err() != nil: // the last stream left and ended this loop
		return false
	case more && err == nil:
		return true
	}
	h.cancel = nil
	return false
}

// start starts the query loop if it is not running; h.mu is held.
func (h *hub) start() {
	if h.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan struct{})
	go h.loop(ctx, h.done)
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
	case errors.Is(l.err, backends.ErrPermission) || errors.Is(l.err, backends.ErrLayout):
		return l.err // the layout check's, classified
	}
	return streamErr(what, l.err)
}

// stream is one WatchSet's share of the hub's query (watchset.Stream):
// each view the hub reads becomes the Facts of the keys written since the
// stream's last view.
type stream struct {
	h     *hub
	sig   chan struct{} // cap 1: the hub has news
	acked chan struct{} // cap 1: the set took the news (see owe)
	gone  chan struct{} // closed by Close

	// Guarded by h.mu.
	want bool  // the set has requests waiting
	owe  bool  // the set owes the hub an answer to want after news
	err  error // the query's error, for the set

	mu    sync.Mutex // guards cur and armed: Read runs in another goroutine
	cur   view       // the last view the set took
	armed []watchset.Request
}

// Open joins the hub; the stream starts at the hub's latest view, or at
// its next one.
func (h *hub) Open(context.Context) watchset.Stream[struct{}] {
	st := &stream{h: h, sig: make(chan struct{}, 1), acked: make(chan struct{}, 1), gone: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.streams == nil {
		h.streams = make(map[*stream]struct{})
	}
	h.streams[st] = struct{}{}
	if h.view.seq > 0 {
		st.poke()
	}
	return st
}

// Events returns the channel the hub signals news on.
func (st *stream) Events() <-chan struct{} { return st.sig }

// readAll is the position the stream tells: a read costs nothing (see
// Read), so every request is read, and answered at once if the view
// already shows it a change, even one that knows a state at the view's
// index.
const readAll = math.MaxUint64

// Next takes the hub's news: its error, or the Facts of the keys written
// since the stream's last view, and of the armed requests (see Read) that
// the new view reaches. A request still ahead of the new view stays
// armed: a server that lagged can answer with an index below what a
// request knows, and the key may then be written and deleted before the
// next view, which would not show it among the keys that differ.
func (st *stream) Next(struct{}, bool) watchset.Batch {
	st.h.mu.Lock()
	v, err := st.h.view, st.err
	st.err = nil
	st.h.mu.Unlock()
	st.mu.Lock()
	prev, armed := st.cur, st.armed
	if err == nil && v.seq > prev.seq {
		st.cur, st.armed = v, nil
		var reached []watchset.Request
		for _, r := range armed {
			if r.Known.Revision > v.index {
				st.armed = append(st.armed, r)
			} else {
				reached = append(reached, r)
			}
		}
		armed = reached
	}
	st.mu.Unlock()
	switch {
	case err != nil:
		return watchset.Batch{Err: err}
	case v.seq <= prev.seq:
		return watchset.Batch{}
	case prev.seq == 0:
		return watchset.Batch{Position: readAll}
	case v.back:
		return watchset.Batch{Reset: true, Position: readAll}
	}
	return watchset.Batch{Facts: append(st.h.s.changes(prev, v), st.h.s.facts(v, armed)...)}
}

// Read answers reqs from the stream's last view, with no I/O. A request
// that knows a later state than the view is read again in the next view
// (it is armed): a key written and then deleted between two views is not
// among the keys that differ between them, yet differs from what such a
// request knows.
func (st *stream) Read(_ context.Context, reqs []watchset.Request) watchset.Batch {
	st.mu.Lock()
	v := st.cur
	for _, r := range reqs {
		if r.Known.Revision > v.index {
			st.armed = append(st.armed, r)
		}
	}
	st.mu.Unlock()
	return watchset.Batch{Facts: st.h.s.facts(v, reqs)}
}

// Want tells the hub whether the set has requests waiting, starting the
// query if it does, and answers the hub's wait after news (see apply).
func (st *stream) Want(pending bool) {
	h := st.h
	h.mu.Lock()
	st.want = pending
	owed := st.owe
	st.owe = false
	if pending {
		h.start()
		if st.behind() {
			st.poke()
		}
	}
	h.mu.Unlock()
	if owed {
		select {
		case st.acked <- struct{}{}:
		default:
		}
	}
}

// Close leaves the hub. After the last stream it ends the query loop,
// waits for it, and drops the view: the next stream starts afresh.
func (st *stream) Close() {
	close(st.gone)
	h := st.h
	h.mu.Lock()
	delete(h.streams, st)
	if len(h.streams) > 0 {
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

// behind reports whether the hub has read a view the stream has not
// taken; h.mu is held.
func (st *stream) behind() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.cur.seq < st.h.view.seq
}

// poke signals news without blocking.
func (st *stream) poke() {
	select {
	case st.sig <- struct{}{}:
	default:
	}
}

// await waits until the stream's set took the hub's news, or the stream
// or the loop ended.
func (st *stream) await(ctx context.Context) {
	select {
	case <-st.acked:
	case <-st.gone:
	case <-ctx.Done():
	}
}
