package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// queuePrefix returns the etcd key prefix of election's queue entries
// (see keys.Queue). A session's entry is that prefix + its lease ID in
// hex, put with the lease; its token is its create revision.
func (s *store) queuePrefix(election string) string { return keys.Queue(s.prefix, election) }

// Enqueue puts the session's entry with its lease if it is absent, and
// reads it otherwise, in one transaction.
func (ss *session) Enqueue(ctx context.Context, election string) (backends.Record, error) {
	s := ss.s
	key := s.queuePrefix(election) + ss.ID()
	resp, err := s.c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, "", clientv3.WithLease(ss.id))).
		Else(clientv3.OpGet(key)).Commit()
	if err != nil {
		return backends.Record{}, s.classify("enqueue", election, ctx, err)
	}
	rec := backends.Record{Election: election, Owner: ss.ID(), Revision: uint64(resp.Header.Revision), Token: uint64(resp.Header.Revision)}
	if !resp.Succeeded {
		kvs := resp.Responses[0].GetResponseRange().Kvs
		if len(kvs) == 0 { // deleted between compare and get: impossible in one txn
			return backends.Record{}, fmt.Errorf("etcd: enqueue %q: entry vanished inside a transaction", election)
		}
		rec.Token = uint64(kvs[0].CreateRevision)
	}
	return rec, nil
}

// Ahead reads, in one range request, the entry with the greatest create
// revision below token: the newest entry older than the waiter's.
func (s *store) Ahead(ctx context.Context, election string, token uint64) (backends.Record, error) {
	rec := backends.Record{Election: election}
	if token <= 1 { // MaxCreateRev 0 would mean no bound; nothing is older than revision 1
		return rec, nil
	}
	prefix := s.queuePrefix(election)
	resp, err := s.c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithMaxCreateRev(int64(token)-1),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortDescend), clientv3.WithLimit(1))
	if err != nil {
		return rec, s.classify("queue ahead", election, ctx, err)
	}
	rec.Revision = uint64(resp.Header.Revision)
	if len(resp.Kvs) == 1 {
		kv := resp.Kvs[0]
		rec.Token, rec.Owner = uint64(kv.CreateRevision), string(kv.Key[len(prefix):])
	}
	return rec, nil
}

// Dequeue deletes the entry if its create revision is the entry's token.
func (s *store) Dequeue(ctx context.Context, entry backends.Record) error {
	key := s.queuePrefix(entry.Election) + entry.Owner
	_, err := s.c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", int64(entry.Token))).
		Then(clientv3.OpDelete(key)).Commit()
	if err != nil {
		return s.classify("dequeue", entry.Election, ctx, err)
	}
	return nil
}
