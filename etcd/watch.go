package etcd

import (
	"context"
	"errors"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/errclass"
	"github.com/leasehold/leasehold/internal/watchset"
)

// Watch returns a WatchSet run by the
// project's watch engine on one etcd watch of the adapter's prefix, which
// covers the leader keys, the queue entries and the roster records. The
// watch opens with the first request, at the current revision, requiring
// a leader, on a gRPC stream of its own (see streams). A request whose
// known revision is behind the watch's position is covered by a read;
// reads are batched, one transaction of up to 32 requests in flight at a
// time. A broken watch ends every pending request with an error (see
// streamErr), and the next request opens a new one.
//
// deliver may call the set's Wait and Stop, but not Close: Close waits
// for a delivery in progress to return. A nil deliver panics.
func (s *store) Watch(deliver func(backends.Change)) backends.WatchSet {
	return watchset.New[clientv3.WatchResponse]("etcd", source{s}, deliver)
}

// source is the store's watch primitive (watchset.Source).
type source struct{ s *store }

// stream is one watch of the prefix (watchset.Stream).
type stream struct {
	s    *store
	ctx  context.Context // the set's
	stop context.CancelFunc
	wch  clientv3.WatchChan
}

// Open watches the prefix from the current revision, requiring a leader.
func (src source) Open(ctx context.Context) watchset.Stream[clientv3.WatchResponse] {
	s := src.s
	wctx, stop := context.WithCancel(s.streams.own(ctx))
	wch := s.c.Watch(wctx, s.prefix, clientv3.WithPrefix(), clientv3.WithCreatedNotify())
	return &stream{s: s, ctx: ctx, stop: stop, wch: wch}
}

// Events returns the watch's channel.
func (st *stream) Events() <-chan clientv3.WatchResponse { return st.wch }

// Close ends the watch.
func (st *stream) Close() { st.stop() }

// Want does nothing: an idle watch costs nothing.
func (st *stream) Want(bool) {}

// Next turns one response of the watch into the Facts of its events, the
// watch's position, or its error.
func (st *stream) Next(resp clientv3.WatchResponse, ok bool) watchset.Batch {
	switch {
	case !ok:
		return watchset.Batch{Err: st.err("watch set", errors.New("watch closed"))}
	case resp.Err() != nil:
		return watchset.Batch{Err: st.err("watch set", resp.Err())}
	case resp.Created:
		return watchset.Batch{Position: uint64(resp.Header.Revision), RosterWrites: true}
	case len(resp.Events) == 0:
		return watchset.Batch{}
	}
	return watchset.Batch{Facts: st.s.facts(resp.Events), Position: uint64(resp.Events[len(resp.Events)-1].Kv.ModRevision)}
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
