package consul

import (
	"context"
	"sync"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/watchset"
)

// Watch starts a WatchSet. A request is
// answered from the first state read at or after its known Revision
// (the Records of Driver.Get and of the queue carry Consul indexes) that
// differs from it.
//
// While the Store has key queries to spare (Options.KeyQueries), a
// WatchKey or WatchEntry request is served by blocking queries on its own
// keys (awaitKey, awaitGone): a WatchKey on the leader key; a WatchEntry
// on the entry, and on the leader key for a pass behind the
// entry (see backends.Target), which it tells by the new holder's entry,
// as listed with the queue when the wait began or else read then. Such a
// request is answered as soon as its key changes, and costs a connection
// per query while it waits.
//
// Beyond them, the requests of every set of a Store share one blocking
// query: a recursive KV list of the Store's prefix, which holds every
// leader key, queue entry and candidate record, so one query serves every
// election of every set. Each answer of the query becomes the sets' view
// of the prefix; the project's watch engine answers the requests from the
// keys written since a set's last view, and a new request from the
// latest view. The query runs while a set has such a request pending,
// over one HTTP connection. Any change under the prefix (a leader key, a
// queue entry, a candidate record, guarded data) wakes it, and it then
// reads the whole prefix again: the sets of a Store cost one list of the
// prefix per change under it, and, while nothing changes, one per
// Options.WaitTime. Each set has one goroutine, which delivers its
// answers; the query waits for each set that has requests to take a view
// before it asks again.
//
// A shared query that fails ends the requests pending on it then, and a
// key query its own request: with an error wrapping
// backends.ErrPermission on a 403, or when Consul filtered the list by
// the token's ACLs (the sets cannot see every key; an elector's token
// needs read on its whole prefix), and otherwise backends.ErrUnavailable.
// The next request starts a new query.
//
// deliver is called from the set's goroutine. It may call Wait
// and Stop, but not Close: Close waits for a delivery in progress to
// return. A nil deliver panics.
func (s *store) Watch(deliver func(backends.Change)) backends.WatchSet {
	ctx, cancel := context.WithCancel(context.Background())
	return &watchSet{Set: watchset.New[struct{}]("consul", s.hub, deliver), s: s, ctx: ctx, cancel: cancel,
		keyed: make(map[string]*keyed), woke: make(map[string]uint64)}
}

// watchSet is the Store's WatchSet: the engine's Set on the hub, and the
// requests served on their keys beside it.
type watchSet struct {
	*watchset.Set[struct{}]
	s      *store
	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	keyWG  sync.WaitGroup // the goroutines of keyed requests

	mu     sync.Mutex
	keyed  map[string]*keyed // pending requests served on their keys, by election
	woke   map[string]uint64 // by election: the index of the last keyed answer to a pass
	closed bool
}

// request is one request served on its keys.
type request struct {
	tag   uint64
	known backends.Record // Wait: the known state; WaitGone: the entry
	key   string          // the KV key it is about
	gone  bool            // a WaitGone
	lead  string          // WaitGone: the election's leader key
	since uint64          // WaitGone: answer for a pass after this index only
}

// Wait asks for what req.Kind names (see backends.WatchSet). A WatchKey
// request is served on the leader key, and a WatchEntry request on the
// entry, and on the leader key for a pass to a session whose entry waits
// behind it (see backends.Target), while the Store has key queries to
// spare; other requests, and those beyond, go to the engine's Set.
func (w *watchSet) Wait(req backends.WatchRequest) {
	if req.Kind == backends.WatchRoster || !w.serveKeyed(w.keyedRequest(req)) {
		w.Set.Wait(req)
	}
}

// keyedRequest returns the WatchKey or WatchEntry request req as one
// served on its keys.
func (w *watchSet) keyedRequest(req backends.WatchRequest) *request {
	el := req.Known.Election
	if req.Kind == backends.WatchKey {
		return &request{tag: req.Tag, known: req.Known, key: w.s.key(el)}
	}
	return &request{tag: req.Tag, known: req.Known, key: w.s.queuePrefix(el) + req.Known.Owner, gone: true, lead: w.s.key(el)}
}

// Stop withdraws election's request of kind, if any.
func (w *watchSet) Stop(election string, kind backends.WatchKind) {
	if kind != backends.WatchRoster {
		w.mu.Lock()
		w.stopKeyed(election)
		w.mu.Unlock()
	}
	w.Set.Stop(election, kind)
}

// Close ends every request, waits for the keyed requests' goroutines,
// and closes the engine's Set, which waits for a delivery in progress.
func (w *watchSet) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cancel()
	w.keyWG.Wait()
	return w.Set.Close()
}
