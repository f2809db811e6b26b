package etcd

import (
	"context"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"

	"github.com/leasehold/leasehold/backends"
)

// Wait opens a watch at the current revision, then reads the key if the
// store has moved since known was read, and otherwise waits for an event.
//
// A watch opened at a past revision lands in etcd's unsynced watcher group,
// which is caught up only every 100 ms; one opened at the current revision
// is synced and sees a change about a round trip after it commits. Reading
// after the watch is registered covers the changes made before it. The
// watch requires a leader, so a member cut off from its cluster ends it
// with an error instead of leaving it silent. Events at or before the
// state compared with are skipped (see past).
func (s *store) Wait(ctx context.Context, known backends.Record) (backends.Record, error) {
	el := known.Election
	sctx, stream := s.streams.share(ctx)
	wctx, cancel := context.WithCancel(sctx)
	defer cancel()
	wch := s.c.Watch(wctx, s.key(el), clientv3.WithCreatedNotify())
	created, ok := <-wch
	if !ok || created.Err() != nil {
		return backends.Record{}, s.classify("wait", el, ctx, s.watchErr(ctx, stream, created, ok))
	}
	seen := known.Revision // events at or before it are reflected in known
	if uint64(created.Header.Revision) != known.Revision {
		cur, err := s.Get(ctx, el)
		if err != nil || cur.Differs(known) {
			return cur, err
		}
		seen = max(seen, cur.Revision)
	}
	for resp := range wch {
		if err := resp.Err(); err != nil {
			return backends.Record{}, s.classify("wait", el, ctx, err)
		}
		rec, ok, err := change(known, seen, resp.Events, func(rev uint64) (*mvccpb.KeyValue, error) { return s.termAt(ctx, el, rev) })
		if err != nil {
			return backends.Record{}, err
		}
		if ok {
			return rec, nil
		}
	}
	return backends.Record{}, s.classify("wait", el, ctx, fmt.Errorf("watch closed: %w", ctx.Err()))
}

// change returns the first state the events give the key that differs
// from known, skipping events at or before revision seen. A put that is
// not the key's first (a Proclaim, or a Pass) takes its token from the
// term key as of its revision (see tokenOf), which termAt reads.
func change(known backends.Record, seen uint64, evs []*clientv3.Event, termAt func(rev uint64) (*mvccpb.KeyValue, error)) (backends.Record, bool, error) {
	for _, ev := range evs {
		if past(ev, seen) {
			continue
		}
		rec := backends.Record{Election: known.Election, Revision: uint64(ev.Kv.ModRevision)}
		if ev.Type == clientv3.EventTypePut {
			var term *mvccpb.KeyValue
			if ev.Kv.Version > 1 {
				var err error
				if term, err = termAt(rec.Revision); err != nil {
					return backends.Record{}, false, err
				}
			}
			fill(&rec, ev.Kv, term)
		}
		if rec.Differs(known) {
			return rec, true, nil
		}
	}
	return backends.Record{}, false, nil
}

// past reports whether ev is at or before revision seen. A watch opened
// without a revision starts at the revision of the member that serves it,
// which may lag behind the cluster (a member catching up after a restart
// or a partition): it then replays events that precede the state Wait
// compares with, such as the deletion of the key a new holder then
// created. Taken as news, such an event would tell a new leader that its
// key is gone.
func past(ev *clientv3.Event, seen uint64) bool { return uint64(ev.Kv.ModRevision) <= seen }

// leaderMD is the metadata of clientv3.WithRequireLeader, made once: that
// function allocates a map per call, and every held or waiting election
// keeps its watch's context, about 400 bytes each at 10,000 elections.
// gRPC and clientv3 only read an outgoing context's metadata.
var leaderMD = metadata.Pairs(rpctypes.MetadataRequireLeaderKey, rpctypes.MetadataHasLeader)

// watchErr returns why a watch on stream ended before it was created, and
// leaves that stream if it refused the watch for its token (see streams).
func (s *store) watchErr(ctx context.Context, stream *metadata.MD, resp clientv3.WatchResponse, ok bool) error {
	if ok {
		s.streams.refused(stream, resp.Err())
		return resp.Err()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("watch closed before it was created")
}
