package consul

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/consul/api"
)

// errNotHeld says that a leader key is absent, unlocked, or does not hold
// the token a call gave: heldTxn's callers wrap the class of their
// contract around it.
var errNotHeld = errors.New("the leader key does not hold the token")

// heldTxn runs ops in a transaction guarded by "election's leader key
// holds token": ops follow the guard, so operation i of ops is operation
// i+1 of the transaction. The guard is a check of the key's ModifyIndex,
// first against index: token itself while the key is as acquired, or the
// ModifyIndex the holder's own last Proclaim left (session.index), and
// the transaction is one request then. If the key's ModifyIndex has
// moved on while the token stays (a Proclaim heldTxn was not told of),
// the first check fails, and heldTxn reads the key, and
// if it is locked and holds token (see held), runs the transaction once
// more, guarded by the ModifyIndex just read. That guard makes the second
// attempt as atomic as the first: if the key changed in between, it is
// rolled back, and heldTxn returns a plain error (try again). A key that
// does not hold token is errNotHeld; any other rollback a *rolledBack.
func (s *store) heldTxn(ctx context.Context, op, election string, token, index uint64, ops api.TxnOps) (*api.TxnResponse, error) {
	key := s.key(election)
	guarded := func(index uint64) api.TxnOps {
		return append(api.TxnOps{{KV: &api.KVTxnOp{Verb: api.KVCheckIndex, Key: key, Index: index}}}, ops...)
	}
	resp, err := s.txn(ctx, op, election, guarded(index))
	var rb *rolledBack
	if !errors.As(err, &rb) || !rb.failedAt(0) {
		return resp, err
	}
	p, _, err := s.read(ctx, election)
	switch {
	case err != nil:
		return nil, s.classify(op, election, ctx, err)
	case p == nil || p.Session == "" || p.ModifyIndex == index || tokenOf(p) != token:
		return nil, errNotHeld
	}
	resp, err = s.txn(ctx, op, election, guarded(p.ModifyIndex))
	if errors.As(err, &rb) && rb.failedAt(0) {
		return nil, fmt.Errorf("%s: the leader key changed while being written at token %d; try again: %w", opName(op, election), token, err)
	}
	return resp, err
}
