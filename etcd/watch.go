package etcd

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/errclass"
	"github.com/leasehold/leasehold/internal/watchset"
)

// Watch returns a WatchSet run by the project's watch engine on one gRPC
// watch stream of its own (see streams), opened with the first request
// and requiring a leader. The stream carries a watch per key a request is
// about, not one on the adapter's prefix, so a write costs only the sets
// that wait for it (watchset.Tracker): a WatchKey request watches its
// leader key and term key, a WatchEntry request the entry ahead and its
// own entry (WatchRequest.Mine: a pass to the waiter writes it). Each
// watch starts at the store's current revision, which etcd tells at once
// (one from a revision at or before it etcd leaves unsynced, telling it
// nothing until its next sync, up to 100 ms later); a request the store
// has moved past by then is read once its watches are made (see made),
// else it needs no read. The
// WatchRoster requests share one watch of every election's roster,
// opened by the first from its revision on (see rosterWatch): one that
// knows a revision before that start watches its own roster, from it. A
// leader follows the roster of each election it holds, so a watch each
// would cost one per held election. A WatchEntry request, and
// one that knows no revision, is read first and watched from the read's
// revision; so is one that knows a revision before the stream's last
// (a watch from there would replay states since superseded), and one
// whose watch starts at a compacted revision (it is made again at the
// current one). Reads are batched, one transaction of up to 32 requests
// in flight at a time. A stream that loses its connection is opened
// again once the connection is back, and so is one whose token etcd
// refuses (see refused), each watch made again from where it was, as
// clientv3's watches resume. Any other end (no leader, a refusal) ends
// every pending request with its error, and the next request opens a new
// stream.
//
// deliver may call the set's Wait and Stop, but not Close: Close waits
// for a delivery in progress to return. A nil deliver panics.
func (s *store) Watch(deliver func(backends.Change)) backends.WatchSet {
	return watchset.New[received]("etcd", source{s}, deliver)
}

// source is the store's watch primitive (watchset.Source).
type source struct{ s *store }

// received is one message of a watch stream, the error that ended it,
// or a new gRPC stream that replaces the last (ws).
type received struct {
	resp  *etcdserverpb.WatchResponse
	err   error
	ws    etcdserverpb.Watch_WatchClient
	cut   context.CancelFunc // ends ws
	sweep bool               // watches parked since parkFor are due (see parkFor)
}

// stream is one watch stream and its watches (watchset.Stream and
// watchset.Tracker). Its fields but redo are used by the Set's goroutine
// only.
type stream struct {
	s       *store
	ctx     context.Context // the set's
	life    context.Context // the stream's: ends with Close
	stop    context.CancelFunc
	ch      chan received
	out     *outbox
	ws      etcdserverpb.Watch_WatchClient // nil until the first opens
	cut     context.CancelFunc             // ends ws
	redo    atomic.Bool                    // ws was cut to be opened again
	retried bool                           // ws was opened again for a refusal, and has had no watch accepted since
	cutting bool                           // ws was cut for a refusal: its other refusals tell nothing
	last    int64                          // the last watch ID given
	watches map[int64]*watcher             // by watch ID
	byReq   map[uint64][]int64
	pairs   map[string]pair // a WatchKey's leader and term keys, by election
	parked  map[parkKey]parked
	rosters rosterWatch
}

// Open starts the goroutine that opens a gRPC watch stream and receives
// from it, until the Set closes it (see serve).
func (src source) Open(ctx context.Context) watchset.Stream[received] {
	sctx, stop := context.WithCancel(ctx)
	st := &stream{s: src.s, ctx: ctx, life: sctx, stop: stop, ch: make(chan received, 16), out: newOutbox(),
		watches: map[int64]*watcher{}, byReq: map[uint64][]int64{}, pairs: map[string]pair{}, parked: map[parkKey]parked{}}
	go st.serve(sctx)
	go st.out.run(sctx)
	return st
}

// serve opens a gRPC stream of its own (see streams), with a fresh auth
// token, once the connection is ready, hands it to the Set, and hands on
// each message it receives. A stream that breaks with the connection, or
// that the Set cut (redo), is opened again, as clientv3's watches are: the
// Set makes its watches again from where they were. Any other end is
// handed on as an error, and ends serve.
func (st *stream) serve(ctx context.Context) {
	var backoff time.Duration
	for {
		gctx, cut := context.WithCancel(st.s.streams.own(ctx))
		ws, err := etcdserverpb.NewWatchClient(st.s.c.ActiveConnection()).Watch(gctx, grpc.WaitForReady(true))
		heard := false
		if err == nil && st.hand(ctx, received{ws: ws, cut: cut}) {
			heard, err = st.receive(ctx, ws)
		}
		cut()
		redo := st.redo.Swap(false)
		if ctx.Err() != nil || !redo && !resumable(err) {
			st.hand(ctx, received{err: err})
			return
		}
		if backoff = reopenBackoff(backoff, heard || redo); !pause(ctx, backoff) {
			return
		}
	}
}

// Reopen backoff: a stream that ends resumably before it told anything
// is opened again after a pause that doubles from minReopen to maxReopen,
// as clientv3's watches back off, so that a server that keeps ending
// streams at once is not asked again in a tight loop.
const minReopen, maxReopen = 50 * time.Millisecond, 2 * time.Second

// reopenBackoff returns the pause before the next open, after one of last:
// none if the stream told something (or the Set cut it), else doubled.
func reopenBackoff(last time.Duration, heard bool) time.Duration {
	if heard {
		return 0
	}
	return min(max(2*last, minReopen), maxReopen)
}

// pause waits d, or until ctx ends; it reports whether ctx is still live.
func pause(ctx context.Context, d time.Duration) bool {
	if d == 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// receive hands on the messages of ws until it ends, and returns why and
// whether it received any.
func (st *stream) receive(ctx context.Context, ws etcdserverpb.Watch_WatchClient) (heard bool, err error) {
	for {
		resp, err := ws.Recv()
		if err != nil {
			return heard, err
		}
		heard = true
		if !st.hand(ctx, received{resp: resp}) {
			return heard, ctx.Err()
		}
	}
}

// hand gives m to the Set, unless ctx ends first.
func (st *stream) hand(ctx context.Context, m received) bool {
	select {
	case st.ch <- m:
		return true
	case <-ctx.Done():
		return false
	}
}

// resumable reports whether a gRPC stream that ended with err is opened
// again: it lost its connection (clientv3's watches resume so), not its
// leader (the watches require one) or its context.
func resumable(err error) bool {
	code := status.Code(err)
	return (code == codes.Unavailable || code == codes.Internal) && !errors.Is(rpctypes.Error(err), rpctypes.ErrNoLeader)
}

// Events returns the stream's messages.
func (st *stream) Events() <-chan received { return st.ch }

// Close ends the stream and its watches.
func (st *stream) Close() { st.stop() }

// Want does nothing: an idle watch costs nothing.
func (st *stream) Want(bool) {}

// Next turns one message into the Facts of its events, or the stream's
// error; a new gRPC stream gets the watches made again. A message of a
// watch since ended (Untrack) tells nothing.
func (st *stream) Next(m received, ok bool) watchset.Batch {
	switch {
	case !ok:
		return watchset.Batch{Err: st.err("watch set", errors.New("watch closed"))}
	case m.err != nil:
		return watchset.Batch{Err: st.err("watch set", m.err)}
	case m.ws != nil:
		st.reopened(m.ws, m.cut)
		return watchset.Batch{}
	case m.sweep:
		st.sweep(time.Now())
		return watchset.Batch{}
	}
	resp := m.resp
	if resp.Canceled && resp.WatchId == clientv3.InvalidWatchID {
		return st.refused(resp)
	}
	w, known := st.watches[resp.WatchId]
	switch {
	case !known:
		return watchset.Batch{}
	case resp.CompactRevision != 0:
		w.next, w.reread = 0, true
		st.move(resp.WatchId, w)
		return watchset.Batch{}
	case resp.Canceled:
		return watchset.Batch{Err: st.err("watch set", cancelErr(resp.CancelReason))}
	case resp.Created && w.role == rostersRole:
		facts := st.rostersMade(w, resp.Header.GetRevision())
		return st.created(w, resp, facts)
	case resp.Created && w.reread:
		return st.created(w, resp, []watchset.Fact{{What: watchset.Reread, Election: w.election, Revision: uint64(resp.Header.GetRevision()), Kind: w.role.kind()}})
	case resp.Created && w.need != 0:
		return st.made(w, resp)
	case resp.Created:
		return st.created(w, resp, nil)
	}
	if n := len(resp.Events); n > 0 {
		w.next = resp.Events[n-1].Kv.ModRevision + 1
	}
	return watchset.Batch{Facts: st.facts(w, resp.Events)}
}

// created notes that the server made watch w: a watch made at the
// current revision tells every change after the response's on, and the
// stream has heard the store at that revision. A watch made again at the
// current revision after a compaction (reread) has its request read,
// with rereads, the Rereads of its requests; so does the roster watch
// made past where it was opened from (see rostersMade).
func (st *stream) created(w *watcher, resp *etcdserverpb.WatchResponse, rereads []watchset.Fact) watchset.Batch {
	rev := resp.Header.GetRevision()
	st.retried = false
	if w.next == 0 || w.reread { // else it may still replay older ones
		w.next = rev + 1
	}
	if w.reread {
		w.reread = false
		return watchset.Batch{Facts: rereads}
	}
	return watchset.Batch{Position: uint64(rev), Facts: rereads}
}

// refused handles a watch the server refused to create. etcd checks the
// auth token a gRPC stream opened with at each watch created on it, and a
// simple token lapses unused (github.com/etcd-io/etcd/issues/12385): the
// first refusal since a watch was accepted opens the stream again, with a
// fresh token; a second ends it with the refusal's error.
func (st *stream) refused(resp *etcdserverpb.WatchResponse) watchset.Batch {
	switch {
	case st.cutting:
		return watchset.Batch{}
	case st.retried:
		return watchset.Batch{Err: st.err("watch set", cancelErr(resp.CancelReason))}
	}
	st.retried, st.cutting = true, true
	st.redo.Store(true)
	st.cut()
	return watchset.Batch{}
}

// cancelErr returns the error a watch was canceled with, its reason as
// etcd gives it.
func cancelErr(reason string) error {
	for _, e := range []error{rpctypes.ErrGRPCInvalidAuthToken, rpctypes.ErrGRPCAuthOldRevision, rpctypes.ErrGRPCUserEmpty, rpctypes.ErrGRPCPermissionDenied} {
		if reason == e.Error() {
			return rpctypes.Error(e)
		}
	}
	return rpctypes.Error(status.Error(codes.FailedPrecondition, reason))
}

// reopened takes ws, a new gRPC stream, and makes every watch on it again
// from the revision after the last it told.
func (st *stream) reopened(ws etcdserverpb.Watch_WatchClient, cut context.CancelFunc) {
	st.ws, st.cut, st.cutting = ws, cut, false
	for id, w := range st.watches {
		st.create(id, w)
	}
}

// Read gets, in one transaction, for each request its key (the leader
// key, or the queue entry of a Gone), its election's term key and leader
// key, or, for a Roster, its roster.
func (st *stream) Read(ctx context.Context, reqs []watchset.Request) watchset.Batch {
	s := st.s
	ops := make([]clientv3.Op, 0, 3*len(reqs))
	for _, r := range reqs {
		el := r.Known.Election
		switch r.Kind {
		case watchset.Roster:
			ops = append(ops, s.listOp(el))
		case watchset.Gone:
			ops = append(ops, clientv3.OpGet(s.queuePrefix(el)+r.Known.Owner))
		default:
			ops = append(ops, clientv3.OpGet(s.key(el)))
		}
		if r.Kind != watchset.Roster {
			ops = append(ops, clientv3.OpGet(s.termKey(el)), clientv3.OpGet(s.key(el)))
		}
	}
	resp, err := s.c.Txn(ctx).Then(ops...).Commit()
	if err != nil {
		return watchset.Batch{Err: st.err("watch set read", err)}
	}
	rev, rs := uint64(resp.Header.Revision), resp.Responses
	var facts []watchset.Fact
	for _, r := range reqs {
		if r.Kind == watchset.Roster {
			recs := s.rosterOf(r.Known.Election, rs[0].GetResponseRange().Kvs, rev)
			facts = append(facts, watchset.Fact{What: watchset.RosterDigest, Election: r.Known.Election, Revision: rev, Entry: backends.RosterDigest(recs)})
			rs = rs[1:]
			continue
		}
		facts = s.readFacts(facts, r, only(rs[0]), only(rs[1]), only(rs[2]), rev)
		rs = rs[3:]
	}
	return watchset.Batch{Facts: facts}
}

// only returns the key a get found, or nil.
func only(r *etcdserverpb.ResponseOp) *mvccpb.KeyValue {
	if kvs := r.GetResponseRange().Kvs; len(kvs) == 1 {
		return kvs[0]
	}
	return nil
}

// err classifies an error of the watch or of a read. One of no class is
// reported as ErrUnavailable: the request did nothing, and the caller
// reads and asks again.
func (st *stream) err(op string, err error) error {
	return errclass.WatchErr("etcd: "+op, st.s.classify(op, "", st.ctx, err), err)
}
