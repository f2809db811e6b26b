package consul

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// txnChunk is the number of keys Close deletes per transaction. Consul
// takes 128 operations per transaction since 1.22 and 64 before.
const txnChunk = 64

// End deletes the key, or passes it to req.To, in a transaction guarded
// by "the key holds req.Token" (see heldTxn), so it ends only the
// incarnation that token names: one request, or two if the session does
// not know the key's last ModifyIndex (heldTxn). Deleting a locked key
// arms no lock-delay: a waiter can take it at once. With req.Leave the
// transaction deletes the session's candidate record too (a plain delete
// of the record's key, which the session ID names: a missing record is no
// error).
func (ss *session) End(ctx context.Context, req backends.End) (backends.Record, error) {
	var more api.TxnOps
	if req.Leave {
		more = api.TxnOps{{KV: &api.KVTxnOp{Verb: api.KVDelete, Key: ss.s.rosterPrefix(req.Election) + ss.id}}}
	}
	if req.To != nil {
		return ss.pass(ctx, req, more)
	}
	return backends.Record{}, ss.release(ctx, req.Election, req.Token, more)
}

// release deletes the key at token, with more ops in the transaction.
func (ss *session) release(ctx context.Context, election string, token uint64, more api.TxnOps) error {
	key := ss.s.key(election)
	_, err := ss.s.heldTxn(ctx, "delete", election, token, ss.index(key, token), append(api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVDelete, Key: key}},
	}, more...))
	var rb *rolledBack
	switch {
	case errors.Is(err, errNotHeld):
		err = fmt.Errorf("consul: delete %q at token %d: %w: %w", election, token, backends.ErrNotFound, err)
	case errors.As(err, &rb):
		return fmt.Errorf("consul: delete %q: %w", election, err)
	case err != nil:
		return err
	}
	ss.forget(key, token)
	return err
}

// deleteHeld deletes the keys the session took, up to txnChunk keys per
// transaction, each only if its ModifyIndex is still the one it was taken
// or last proclaimed with. A transaction that fails or is rolled back (one of its keys
// changed) is left alone: destroying the session deletes the keys it
// still holds, with their lock-delay armed.
func (ss *session) deleteHeld(ctx context.Context) {
	var ops api.TxnOps
	for key, h := range ss.takeHeld() {
		ops = append(ops, &api.TxnOp{KV: &api.KVTxnOp{Verb: api.KVDeleteCAS, Key: key, Index: h.index}})
		if len(ops) == txnChunk {
			_, _ = ss.s.txn(ctx, "close", "", ops)
			ops = nil
		}
	}
	if len(ops) > 0 {
		_, _ = ss.s.txn(ctx, "close", "", ops)
	}
}
