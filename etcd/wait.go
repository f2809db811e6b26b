package etcd

import (
	"bytes"
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

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
// with an error instead of leaving it silent.
func (s *Store) Wait(ctx context.Context, known backends.Record) (backends.Record, error) {
	el := known.Election
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := s.c.Watch(wctx, s.Key(el), clientv3.WithCreatedNotify())
	created, ok := <-wch
	if !ok || created.Err() != nil {
		return backends.Record{}, classify("wait", el, ctx, watchErr(ctx, created, ok))
	}
	if uint64(created.Header.Revision) != known.Revision {
		cur, err := s.Get(ctx, el)
		if err != nil || differs(cur, known) {
			return cur, err
		}
	}
	for resp := range wch {
		if err := resp.Err(); err != nil {
			return backends.Record{}, classify("wait", el, ctx, err)
		}
		for _, ev := range resp.Events {
			rec := backends.Record{Election: el, Revision: uint64(ev.Kv.ModRevision)}
			if ev.Type == clientv3.EventTypePut {
				fill(&rec, ev.Kv)
			}
			if differs(rec, known) {
				return rec, nil
			}
		}
	}
	return backends.Record{}, classify("wait", el, ctx, fmt.Errorf("watch closed: %w", ctx.Err()))
}

func differs(a, b backends.Record) bool {
	return a.Token != b.Token || !bytes.Equal(a.Value, b.Value)
}

func watchErr(ctx context.Context, resp clientv3.WatchResponse, ok bool) error {
	if ok {
		return resp.Err()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("watch closed before it was created")
}
