package consul

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// pass hands req.Election's leader key from ss to req.To in one
// transaction, guarded by "the key holds req.Token" (see heldTxn), "ss
// holds the lock", "the target holds its roster record" and, for a target
// in line, "it holds its queue entry" (check-session on each): it unlocks
// the key and locks it again for the target, with req.To.Value and the
// flags api.Lock uses, runs more, and reads the key back. The new lock's
// ModifyIndex is the new token, greater than any before it, as for a
// Create; an unlock arms no lock-delay. A WatchSet tells the entries
// ahead of the target's from the queue it lists (see Watch). The errors
// are Proclaim's, and one wrapping backends.ErrNoCandidate if the target
// holds no roster record or queue entry.
func (ss *session) pass(ctx context.Context, req backends.End, more api.TxnOps) (backends.Record, error) {
	s, election, to := ss.s, req.Election, req.To
	if err := holderCall("pass", election, req.Token, to.Value); err != nil {
		return backends.Record{}, err
	}
	if to.Session == "" || to.Session == ss.id {
		return backends.Record{}, fmt.Errorf("consul: pass %q to session %q: %w", election, to.Session, backends.ErrNoCandidate)
	}
	key := s.key(election)
	ops := api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVCheckSession, Key: key, Session: ss.id}},
		{KV: &api.KVTxnOp{Verb: api.KVCheckSession, Key: s.rosterPrefix(election) + to.Session, Session: to.Session}},
	}
	if to.Entry != 0 {
		ops = append(ops, &api.TxnOp{KV: &api.KVTxnOp{Verb: api.KVCheckSession, Key: s.queuePrefix(election) + to.Session, Session: to.Session}})
	}
	checks := len(ops)
	ops = append(ops,
		&api.TxnOp{KV: &api.KVTxnOp{Verb: api.KVUnlock, Key: key, Session: ss.id}},
		&api.TxnOp{KV: &api.KVTxnOp{Verb: api.KVLock, Key: key, Value: to.Value, Flags: api.LockFlagValue, Session: to.Session}})
	ops = append(append(ops, more...), &api.TxnOp{KV: &api.KVTxnOp{Verb: api.KVGet, Key: key}})
	resp, err := s.heldTxn(ctx, "pass", election, req.Token, ss.index(key, req.Token), ops)
	var rb *rolledBack
	switch {
	case errors.Is(err, errNotHeld), errors.As(err, &rb) && rb.failedAt(1):
		return backends.Record{}, s.notHeld(ctx, "pass", election, ss.id, req.Token, err)
	case errors.As(err, &rb) && (rb.failedAt(2) || rb.failedAt(checks) || rb.failedAt(checks+2)):
		return backends.Record{}, fmt.Errorf("consul: pass %q to session %s: %w: %w", election, to.Session, backends.ErrNoCandidate, err)
	case errors.As(err, &rb):
		return backends.Record{}, fmt.Errorf("consul: pass %q: %w", election, err)
	case err != nil:
		return backends.Record{}, err
	}
	p := lastKV(resp.Results)
	if p == nil || p.Session != to.Session || p.ModifyIndex <= req.Token {
		return backends.Record{}, fmt.Errorf("consul: pass %q: the transaction returned %+v, not the key locked by session %s above token %d", election, p, to.Session, req.Token)
	}
	ss.forget(key, req.Token)
	return record(election, p, p.ModifyIndex), nil
}
