package zookeeper

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/watchset"
)

// Watch returns a WatchSet run by the project's watch engine
// (internal/watchset) on this Store's watches. ZooKeeper has no change
// stream: each request is covered by a read that sets its watches, on the
// Store's reader (see the package doc, Watches), and a notification,
// which go-zookeeper's event callback routes by path to the set that
// watches it, has the request read again (or, for an entry deleted, is
// the answer). Up to 16 reads of up to 32 requests each run at once; a
// read follows one sync, unless each of its requests is read on a
// notification of the connection it is read on: the server that sent it
// has the change (another connection's server may not have it yet); or
// none was notified and the connection's server has what each knows: the
// entry ahead of one that the connection's session made, or a holder's
// pointer write (see Read).
//
// A WatchKey request watches the election's pointer node and, while the
// key is as known, its lead node. A WatchEntry request watches the entry
// it names and, if one of this Store's sessions has the entry just behind
// it (Enqueue), that entry too: a pass to it sets its data (see End), and
// the set then reads the pointer, at once and with no sync, and answers
// with the key passed to that entry's session. The first read of a
// WatchEntry request reads the pointer too, so a pass made before the
// watch was set is answered; each pass is answered once per set and
// election. A
// WatchRoster request lists the roster node's children with a watch (see
// rosterPath).
//
// When a connection that requests watch on drops, every request is read
// again, after a sync, on the reader of the moment (another session's
// connection, or the Store's own, dialed then); so does a request whose
// watch ends with its connection or session. A request ends in an error
// only if a read fails, with an error wrapping ErrUnavailable (no server
// answered), or ErrPermission if the credentials may not read the node.
// Store.Close closes every set; on a closed Store, Watch returns a closed
// set.
//
// deliver may call the set's Wait and Stop, but not Close: Close waits
// for a delivery in progress to return. A nil deliver panics.
func (s *store) Watch(deliver func(backends.Change)) backends.WatchSet {
	w := &watchSet{Set: watchset.New[struct{}]("zookeeper", source{s}, deliver), s: s}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = w.Set.Close()
		return w
	}
	s.sets.Store(ptr(append(slices.Clone(*s.sets.Load()), w)))
	return w
}

func ptr[T any](v T) *T { return &v }

// Reads in flight at once for one set.
const maxReaders = 16

// watchSet is the engine's Set, which Store.Close closes, with the
// requests no read can cover answered at once.
type watchSet struct {
	*watchset.Set[struct{}]
	s *store
}

// Wait implements backends.WatchSet: a request whose election or entry
// names no node is answered with an error, and a WatchEntry request for
// no entry (Token 0) at once; the engine takes the others.
func (w *watchSet) Wait(req backends.WatchRequest) {
	known := req.Known
	var err error
	switch {
	case req.Kind == backends.WatchEntry && known.Token == 0:
		w.answer(req, known, nil)
		return
	case req.Kind == backends.WatchEntry:
		_, err = w.s.entryPath(known)
	case known.Election == "":
		err = errNoName
	}
	if err != nil {
		w.answer(req, backends.Record{}, fmt.Errorf("zookeeper: watch %q: %w", known.Election, err))
		return
	}
	w.Set.Wait(req)
}

// answer withdraws req's election's request of its kind and answers req
// with rec or err.
func (w *watchSet) answer(req backends.WatchRequest, rec backends.Record, err error) {
	el := req.Known.Election
	w.Set.Stop(el, req.Kind)
	c := backends.Change{Election: el, Tag: req.Tag, Record: rec, Err: err}
	if req.Kind == backends.WatchRoster {
		c.Record, c.Roster = backends.Record{Election: el}, true
	}
	w.Set.Answer(c)
}

// Close implements backends.WatchSet.
func (w *watchSet) Close() error {
	w.s.mu.Lock()
	w.s.sets.Store(ptr(slices.DeleteFunc(slices.Clone(*w.s.sets.Load()), func(v *watchSet) bool { return v == w })))
	w.s.mu.Unlock()
	return w.Set.Close()
}

// source is the Store's watch primitive (watchset.Source).
type source struct{ s *store }

// Open registers a stream for the Store's notifications; its first
// Batch, at once, tells that every request is to be read.
func (src source) Open(context.Context) watchset.Stream[struct{}] {
	s := src.s
	st := &stream{s: s, wake: make(chan struct{}, 1), routes: map[string]route{},
		fresh: map[reqKey]*link{}, checks: map[string]bool{}, passed: map[string]uint64{}}
	st.wake <- struct{}{}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams.Store(ptr(append(slices.Clone(*s.streams.Load()), st)))
	return st
}

// stream is a set's share of the Store's notifications (watchset.Stream).
type stream struct {
	s    *store
	wake chan struct{} // notes has news

	mu     sync.Mutex
	opened bool              // the first Batch was told
	notes  []note            // notifications not yet taken by Next
	routes map[string]route  // the requests' watched nodes, by path
	fresh  map[reqKey]*link  // requests notified since their last read, and the link that told: no sync needed on it
	checks map[string]bool   // WatchEntry requests, by election, whose own entry's data changed
	passed map[string]uint64 // by election, the token of the last pass a read told
	told   []watchset.Fact   // what the reads of passes told (readPass), for Next
}

// note is one notification of a link.
type note struct {
	l  *link
	ev zk.Event
}

// route is what a watched node is to its request.
type route struct {
	el     string
	kind   watchset.Kind
	l      *link
	entry  bool            // a WatchEntry request's entry
	hasOwn bool            // entry: the request watches its own entry too
	mine   bool            // a WatchEntry request's own entry (see ownEntries.behind)
	ahead  string          // mine: the path of the entry ahead, the request's entry
	own    backends.Record // mine: the entry
	owner  string          // entry: the entry's session
}

// reqKey names a request of a set: its election and kind.
type reqKey struct {
	el   string
	kind watchset.Kind
}

// notify takes a notification of link l, from go-zookeeper's event
// callback: it never blocks. A pass's, the data of a WatchEntry request's
// own entry changed, starts the read that tells it at once, on l, with
// no sync (see readPass): it does not wait for the set's goroutine.
func (st *stream) notify(l *link, ev zk.Event) {
	st.mu.Lock()
	r, ok := st.routes[ev.Path]
	pass := ok && r.l == l && r.mine && ev.Type == zk.EventNodeDataChanged
	if pass {
		delete(st.routes, ev.Path)
		st.dropAhead(r)
	} else {
		st.notes = append(st.notes, note{l, ev})
	}
	st.mu.Unlock()
	if pass && !st.s.spawn(func() { st.readPass(l, r) }) {
		st.tellPass(nil, r, nil, errStoreClosed)
	}
	st.kick()
}

// kick wakes the set's goroutine, if it has no wake pending.
func (st *stream) kick() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// Events returns the stream's wake channel.
func (st *stream) Events() <-chan struct{} { return st.wake }

// Want does nothing: an idle watch costs nothing.
func (st *stream) Want(bool) {}

// Readers returns how many reads a set runs at once.
func (st *stream) Readers() int { return maxReaders }

// Close stops the Store's notifications to the stream.
func (st *stream) Close() {
	s := st.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams.Store(ptr(slices.DeleteFunc(slices.Clone(*s.streams.Load()), func(v *stream) bool { return v == st })))
}

// Next turns the notifications taken since the last into Facts: a
// dropped connection that requests watch on is a Reset; a watch that
// fired has its request read again (see fired).
func (st *stream) Next(struct{}, bool) watchset.Batch {
	st.mu.Lock()
	defer st.mu.Unlock()
	b := watchset.Batch{Position: math.MaxUint64}
	if !st.opened {
		st.opened = true
		return b
	}
	notes := st.notes
	st.notes = nil
	for _, n := range notes {
		if n.ev.Path == "" {
			if st.dropped(n.l) {
				b.Reset = true
			}
			continue
		}
		if f, ok := st.fired(n); ok {
			b.Facts = append(b.Facts, f)
		}
	}
	b.Facts = append(b.Facts, st.told...)
	st.told = nil
	return b
}

// dropped forgets the routes of link l, which lost its connection, and
// reports whether there were any: then every request is read again.
// st.mu is held.
func (st *stream) dropped(l *link) bool {
	found := false
	for p, r := range st.routes {
		if r.l == l {
			delete(st.routes, p)
			found = true
		}
	}
	if found {
		clear(st.fresh)
	}
	return found
}

// fired returns the Fact of a watch's notification n: the request
// watching its node is read again, with no sync unless the watch ended
// unfired; an entry deleted answers its request, unless a pass to the
// request's own entry may have come with it. st.mu is held.
func (st *stream) fired(n note) (watchset.Fact, bool) {
	r, ok := st.routes[n.ev.Path]
	if !ok || r.l != n.l {
		return watchset.Fact{}, false
	}
	delete(st.routes, n.ev.Path) // a watch fires once
	if n.ev.Type == zk.EventNodeDeleted {
		st.s.ptrs.deleted(r.el, n.ev.Path)
	}
	key := reqKey{r.el, r.kind}
	f := watchset.Fact{What: watchset.Reread, Election: r.el, Kind: r.kind, Revision: math.MaxUint64}
	switch {
	case n.ev.Type == zk.EventNotWatching:
		delete(st.fresh, key)
		return f, true
	case r.entry && !r.hasOwn && n.ev.Type == zk.EventNodeDeleted:
		f.What, f.Record = watchset.EntryState, backends.Record{Owner: r.owner}
		return f, true
	case r.mine && n.ev.Type == zk.EventNodeDataChanged:
		// A pass that notify did not take, the route being set since:
		// the read it calls for tells it (see readGone).
		st.dropAhead(r)
		st.checks[r.el] = true
	}
	st.fresh[key] = n.l
	return f, true
}

// dropAhead drops the route of the entry ahead of r, a WatchEntry
// request's own entry whose data a pass changed. The deletion of the
// entry ahead, which a pass to the entry just behind the holder's makes in
// the same multi, would otherwise have a read of its own, three round
// trips, when its notification comes apart from the pass's. The pass's
// read sets the watches again, if the request is still to be answered.
// st.mu is held.
func (st *stream) dropAhead(r route) {
	if a, ok := st.routes[r.ahead]; ok && a.el == r.el && a.kind == r.kind && a.entry {
		delete(st.routes, r.ahead)
	}
}

// watch routes the notifications of the node at path, watched on l, to
// the request r names. It is called before the read that sets the watch:
// the notification may come before the read's answer.
func (st *stream) watch(path string, r route) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.routes[path] = r
}
