package consul

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// dataKey returns the KV key at which GuardedPut keeps key (see
// keys.Data).
func (s *store) dataKey(key string) string { return keys.Data(s.prefix, key) }

// GuardedPut sets key in a transaction whose first operation checks that
// the leader key's ModifyIndex is token: the adapter never writes a leader
// key after taking it, and a session's invalidation deletes it, so the
// index is the token exactly while that incarnation is held. The check and
// the write are one atomic step.
func (s *store) GuardedPut(ctx context.Context, election string, token uint64, key string, value []byte) error {
	if err := backends.ValidateElection(key); err != nil {
		return fmt.Errorf("consul: guarded put %q: data key: %w", election, err)
	}
	if token == 0 {
		return fmt.Errorf("consul: guarded put %q: token 0: %w", election, backends.ErrNotLeader)
	}
	_, err := s.txn(ctx, "guarded put", election, api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVCheckIndex, Key: s.key(election), Index: token}},
		{KV: &api.KVTxnOp{Verb: api.KVSet, Key: s.dataKey(key), Value: value}},
	})
	var rb *rolledBack
	switch {
	case errors.As(err, &rb) && rb.failedAt(0):
		return fmt.Errorf("consul: guarded put %q at token %d: %w: %w", election, token, backends.ErrNotLeader, err)
	case errors.As(err, &rb):
		return fmt.Errorf("consul: guarded put %q: %w", election, err)
	}
	return err
}
