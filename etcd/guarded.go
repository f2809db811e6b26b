package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// dataKey returns the etcd key at which GuardedPut keeps key (see
// keys.Data).
func (s *store) dataKey(key string) string { return keys.Data(s.prefix, key) }

// GuardedPut puts key in a transaction guarded by "the leader key holds
// token" (see held), so it commits only during that term: one atomic
// step.
func (s *store) GuardedPut(ctx context.Context, w backends.Guarded) error {
	election, token, key, value := w.Election, w.Token, w.Key, w.Value
	if err := backends.ValidateElection(key); err != nil {
		return fmt.Errorf("etcd: guarded put %q: data key: %w", election, err)
	}
	if token == 0 {
		return fmt.Errorf("etcd: guarded put %q: token 0: %w", election, backends.ErrNotLeader)
	}
	resp, err := s.c.Txn(ctx).
		If(s.held(election, token)...).
		Then(clientv3.OpPut(s.dataKey(key), string(value))).Commit()
	if err != nil {
		return s.classify("guarded put", election, ctx, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("etcd: guarded put %q at token %d: %w", election, token, backends.ErrNotLeader)
	}
	return nil
}
