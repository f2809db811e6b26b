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

// GuardedPut sets key in a transaction guarded by "the leader key holds
// token" (see heldTxn): a check of the key's ModifyIndex, which is the
// token while the key is as acquired, and the index read just before
// after a Proclaim, when the write takes two requests. A session's
// invalidation deletes the key and every acquisition moves the index on,
// so the check holds exactly while that incarnation is held. The check
// and the write are one atomic step.
func (s *store) GuardedPut(ctx context.Context, w backends.Guarded) error {
	election, token, key, value := w.Election, w.Token, w.Key, w.Value
	if err := backends.ValidateElection(key); err != nil {
		return fmt.Errorf("consul: guarded put %q: data key: %w", election, err)
	}
	if token == 0 {
		return fmt.Errorf("consul: guarded put %q: token 0: %w", election, backends.ErrNotLeader)
	}
	_, err := s.heldTxn(ctx, "guarded put", election, token, token, api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVSet, Key: s.dataKey(key), Value: value}},
	})
	var rb *rolledBack
	switch {
	case errors.Is(err, errNotHeld):
		return fmt.Errorf("consul: guarded put %q at token %d: %w: %w", election, token, backends.ErrNotLeader, err)
	case errors.As(err, &rb):
		return fmt.Errorf("consul: guarded put %q: %w", election, err)
	}
	return err
}
