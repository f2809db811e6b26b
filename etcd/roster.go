package etcd

import (
	"context"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// rosterPrefix returns the etcd key prefix of election's candidate
// records (see keys.Roster). A session's record is that prefix + its
// lease ID in hex, put with the lease; its token is its create revision.
func (s *store) rosterPrefix(election string) string { return keys.Roster(s.prefix, election) }

// Join puts the session's record with its lease; a put on a key that
// exists keeps its create revision, so a second Join keeps the Token. A
// revoked lease fails the put with ErrSessionExpired.
func (ss *session) Join(ctx context.Context, election string, value []byte) (backends.Record, error) {
	s := ss.s
	resp, err := s.c.Put(ctx, s.rosterPrefix(election)+ss.ID(), string(value), clientv3.WithLease(ss.id), clientv3.WithPrevKV())
	if err != nil {
		return backends.Record{}, s.classify("roster join", election, ctx, err)
	}
	rev := uint64(resp.Header.Revision)
	rec := backends.Record{Election: election, Value: value, Owner: ss.ID(), Token: rev, Revision: rev}
	if resp.PrevKv != nil {
		rec.Token = uint64(resp.PrevKv.CreateRevision)
	}
	return rec, nil
}

// Leave deletes the session's record.
func (ss *session) Leave(ctx context.Context, election string) error {
	s := ss.s
	if _, err := s.c.Delete(ctx, s.rosterPrefix(election)+ss.ID()); err != nil {
		return s.classify("roster leave", election, ctx, err)
	}
	return nil
}

// List reads the records in one range request sorted by create revision,
// after the Store's first check of the layout marker.
func (s *store) List(ctx context.Context, election string) ([]backends.Record, uint64, error) {
	if err := s.layout.Check(ctx); err != nil {
		return nil, 0, err
	}
	resp, err := s.c.Do(ctx, s.listOp(election))
	if err != nil {
		return nil, 0, s.classify("roster list", election, ctx, err)
	}
	rev := uint64(resp.Get().Header.Revision)
	return s.rosterOf(election, resp.Get().Kvs, rev), rev, nil
}

// listOp is the range request that reads election's records sorted by
// create revision.
func (s *store) listOp(election string) clientv3.Op {
	return clientv3.OpGet(s.rosterPrefix(election), clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
}

// rosterOf returns the records of election that listOp read at rev.
func (s *store) rosterOf(election string, kvs []*mvccpb.KeyValue, rev uint64) []backends.Record {
	prefix := s.rosterPrefix(election)
	recs := make([]backends.Record, len(kvs))
	for i, kv := range kvs {
		recs[i] = backends.Record{Election: election, Value: kv.Value, Token: uint64(kv.CreateRevision),
			Owner: string(kv.Key[len(prefix):]), Revision: rev}
	}
	return recs
}
