package watchset_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/watchset"
)

// kvSource is the least Source on a real etcd: each election is one plain
// key under prefix, its state the key's value and create revision, and
// its roster the keys under prefix + "~roster/" + election + "/". Its
// streams end, with ErrUnavailable, when the test calls their stop.
type kvSource struct {
	c      *clientv3.Client
	prefix string
	opens  atomic.Int32
	stops  chan context.CancelFunc // each stream's stop, as it opens
}

type kvStream struct {
	src  *kvSource
	stop context.CancelFunc
	wch  clientv3.WatchChan
}

func (src *kvSource) Open(ctx context.Context) watchset.Stream[clientv3.WatchResponse] {
	src.opens.Add(1)
	wctx, stop := context.WithCancel(clientv3.WithRequireLeader(ctx))
	src.stops <- stop
	return &kvStream{src: src, stop: stop, wch: src.c.Watch(wctx, src.prefix, clientv3.WithPrefix(), clientv3.WithCreatedNotify())}
}

func (st *kvStream) Events() <-chan clientv3.WatchResponse { return st.wch }
func (st *kvStream) Close()                                { st.stop() }
func (st *kvStream) Want(bool)                             {}

func (st *kvStream) Next(resp clientv3.WatchResponse, ok bool) watchset.Batch {
	switch {
	case !ok || resp.Err() != nil:
		return watchset.Batch{Err: backends.ErrUnavailable}
	case resp.Created:
		return watchset.Batch{Position: uint64(resp.Header.Revision), RosterWrites: true}
	}
	var b watchset.Batch
	for _, ev := range resp.Events {
		rev := uint64(ev.Kv.ModRevision)
		b.Position = rev
		k := strings.TrimPrefix(string(ev.Kv.Key), st.src.prefix)
		if el, _, ok := strings.Cut(strings.TrimPrefix(k, "~roster/"), "/"); ok && strings.HasPrefix(k, "~roster/") {
			b.Facts = append(b.Facts, watchset.Fact{What: watchset.RosterWrite, Election: el, Revision: rev})
			continue
		}
		if ev.Type == clientv3.EventTypeDelete {
			ev.Kv = nil
		}
		b.Facts = append(b.Facts, state(k, ev.Kv, rev))
	}
	return b
}

func (st *kvStream) Read(ctx context.Context, reqs []watchset.Request) watchset.Batch {
	var ops []clientv3.Op
	for _, r := range reqs {
		switch r.Kind {
		case watchset.Wait:
			ops = append(ops, clientv3.OpGet(st.src.prefix+r.Known.Election))
		case watchset.Roster: // read when the stream began after the request's revision
			ops = append(ops, clientv3.OpGet(st.src.prefix+"~roster/"+r.Known.Election+"/", clientv3.WithPrefix()))
		default:
			return watchset.Batch{Err: errors.New("kvSource reads Waits and Rosters only")}
		}
	}
	resp, err := st.src.c.Txn(ctx).Then(ops...).Commit()
	if err != nil {
		return watchset.Batch{Err: errors.Join(backends.ErrUnavailable, err)}
	}
	var b watchset.Batch
	rev := uint64(resp.Header.Revision)
	for i, r := range reqs {
		kvs := resp.Responses[i].GetResponseRange().Kvs
		if r.Kind == watchset.Roster {
			b.Facts = append(b.Facts, rosterDigest(r.Known.Election, kvs, rev))
			continue
		}
		var kv *mvccpb.KeyValue
		if len(kvs) == 1 {
			kv = kvs[0]
		}
		b.Facts = append(b.Facts, state(r.Known.Election, kv, rev))
	}
	return b
}

// rosterDigest is the RosterDigest of election el whose records are kvs
// at rev. In these tests digest 0 stands for the empty roster.
func rosterDigest(el string, kvs []*mvccpb.KeyValue, rev uint64) watchset.Fact {
	var d uint64
	if len(kvs) > 0 {
		recs := make([]backends.Record, len(kvs))
		for i, kv := range kvs {
			recs[i] = backends.Record{Owner: string(kv.Key), Token: uint64(kv.CreateRevision), Value: kv.Value}
		}
		d = backends.RosterDigest(recs)
	}
	return watchset.Fact{What: watchset.RosterDigest, Election: el, Revision: rev, Entry: d}
}

// state is the LeaderState of election el whose key is kv (nil: absent)
// at rev.
func state(el string, kv *mvccpb.KeyValue, rev uint64) watchset.Fact {
	rec := backends.Record{Election: el, Revision: rev}
	if kv != nil {
		rec.Owner, rec.Value, rec.Token = "o", kv.Value, uint64(kv.CreateRevision)
	}
	return watchset.Fact{What: watchset.LeaderState, Election: el, Revision: rev, Record: rec}
}
