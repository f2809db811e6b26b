package consul

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

var _ backends.Passer = (*store)(nil)

// Pass hands election's leader key from s to the session to in one
// transaction, guarded by "the key holds token" (see heldTxn), "s holds
// the lock" and "to holds its roster record" (check-session on it): it
// unlocks the key and locks it again for to, with value and the flags
// api.Lock uses, and reads it back. The new lock's ModifyIndex is the
// new token, greater than any before it, as for a Create; an unlock arms
// no lock-delay. With leave it deletes s's record too. The target's queue
// entry is not kept: a WatchSet tells the entries ahead of it from the
// queue it lists (see Watch). It is one request,
// as Delete is (heldTxn). The errors are Proclaim's, and one
// wrapping backends.ErrNoCandidate if to holds no roster record. bs must
// be a session made by a Store on the same client.
func (s *store) Pass(ctx context.Context, bs backends.Session, election string, token uint64, to string, _ uint64, value []byte, leave bool) (backends.Record, error) {
	ss, err := s.holderCall("pass", bs, election, token, value)
	switch {
	case err != nil:
		return backends.Record{}, err
	case to == "" || to == ss.id:
		return backends.Record{}, fmt.Errorf("consul: pass %q to session %q: %w", election, to, backends.ErrNoCandidate)
	}
	key := s.key(election)
	ops := api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVCheckSession, Key: key, Session: ss.id}},
		{KV: &api.KVTxnOp{Verb: api.KVCheckSession, Key: s.rosterPrefix(election) + to, Session: to}},
		{KV: &api.KVTxnOp{Verb: api.KVUnlock, Key: key, Session: ss.id}},
		{KV: &api.KVTxnOp{Verb: api.KVLock, Key: key, Value: value, Flags: api.LockFlagValue, Session: to}},
	}
	if leave {
		ops = append(ops, &api.TxnOp{KV: &api.KVTxnOp{Verb: api.KVDelete, Key: s.rosterPrefix(election) + ss.id}})
	}
	resp, err := s.heldTxn(ctx, "pass", election, token, ss.index(key, token), append(ops,
		&api.TxnOp{KV: &api.KVTxnOp{Verb: api.KVGet, Key: key}}))
	var rb *rolledBack
	switch {
	case errors.Is(err, errNotHeld), errors.As(err, &rb) && rb.failedAt(1):
		return backends.Record{}, s.notHeld(ctx, "pass", election, ss.id, token, err)
	case errors.As(err, &rb) && (rb.failedAt(2) || rb.failedAt(4)):
		return backends.Record{}, fmt.Errorf("consul: pass %q to session %s: %w: %w", election, to, backends.ErrNoCandidate, err)
	case errors.As(err, &rb):
		return backends.Record{}, fmt.Errorf("consul: pass %q: %w", election, err)
	case err != nil:
		return backends.Record{}, err
	}
	p := lastKV(resp.Results)
	if p == nil || p.Session != to || p.ModifyIndex <= token {
		return backends.Record{}, fmt.Errorf("consul: pass %q: the transaction returned %+v, not the key locked by session %s above token %d", election, p, to, token)
	}
	ss.forget(key, token)
	return record(election, p, p.ModifyIndex), nil
}

// CommittedWaits reports true: every answer of Wait and of a WatchSet is
// a read of a server's state store, which holds only what the Raft log
// committed, as of the answer's X-Consul-Index (see
// backends.CommittedWaits). A view of a lagging server is older, and so
// has a lower index, not a different history.
func (s *store) CommittedWaits() bool { return true }
