package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

var _ backends.GuardedWriter = (*Store)(nil)

// DataKey returns the etcd key at which GuardedPut keeps key:
// Prefix + backends.DataSegment + "/" + key.
func (s *Store) DataKey(key string) string { return s.prefix + backends.DataSegment + "/" + key }

// GuardedPut puts key in a transaction guarded by the leader key's
// CreateRevision == token, so it commits only while that incarnation of
// the leader key exists: one atomic step.
func (s *Store) GuardedPut(ctx context.Context, election string, token uint64, key string, value []byte) error {
	if err := backends.ValidateElection(key); err != nil {
		return fmt.Errorf("etcd: guarded put %q: data key: %w", election, err)
	}
	if token == 0 {
		return fmt.Errorf("etcd: guarded put %q: token 0: %w", election, backends.ErrNotLeader)
	}
	resp, err := s.c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(s.Key(election)), "=", int64(token))).
		Then(clientv3.OpPut(s.DataKey(key), string(value))).Commit()
	if err != nil {
		return s.classify("guarded put", election, ctx, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("etcd: guarded put %q at token %d: %w", election, token, backends.ErrNotLeader)
	}
	return nil
}
