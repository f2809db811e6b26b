package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

// Wait watches the leader key from rev+1 and returns the first change. The
// watch requires a leader, so a member cut off from its cluster ends it with
// an error instead of leaving it silent.
func (s *Store) Wait(ctx context.Context, election string, rev uint64) (backends.Record, error) {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := s.c.Watch(wctx, s.Key(election), clientv3.WithRev(int64(rev)+1))
	for resp := range wch {
		if resp.CompactRevision != 0 {
			return backends.Record{}, fmt.Errorf("etcd: wait %q from %d: %w (compacted at %d)",
				election, rev, backends.ErrCompacted, resp.CompactRevision)
		}
		if err := resp.Err(); err != nil {
			return backends.Record{}, classify("wait", election, ctx, err)
		}
		for _, ev := range resp.Events {
			rec := backends.Record{Election: election, Revision: uint64(ev.Kv.ModRevision)}
			if ev.Type == clientv3.EventTypePut {
				fill(&rec, ev.Kv)
			}
			return rec, nil
		}
	}
	return backends.Record{}, classify("wait", election, ctx, ctx.Err())
}
