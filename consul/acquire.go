package consul

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// Create locks the key with the session in one transaction if the key is
// absent. If it exists, Create reads it: it returns the holder's record
// with ErrKeyExists, or its own record if this session already holds it,
// or takes it if no session holds it (or it went meanwhile). A key whose
// flags are not api.LockFlagValue is refused with an error wrapping
// api.ErrLockConflict.
// A lock Consul refuses on a free key is ErrSessionExpired if the session
// is gone, and otherwise a plain error: the key's lock-delay is in force
// and a retry after it will succeed.
func (ss *session) Create(ctx context.Context, election string, value []byte) (backends.Record, error) {
	guard := &api.KVTxnOp{Verb: api.KVCheckNotExists, Key: ss.s.key(election)}
	return ss.acquire(ctx, election, value, guard, ss.createExisting)
}

// acquire locks the key if guard holds; if guard fails, it returns
// onGuard's outcome instead.
func (ss *session) acquire(ctx context.Context, election string, value []byte, guard *api.KVTxnOp,
	onGuard func(context.Context, string, []byte) (backends.Record, error)) (backends.Record, error) {
	rec, err := ss.lock(ctx, election, value, guard)
	var rb *rolledBack
	switch {
	case err == nil:
		return rec, nil
	case !errors.As(err, &rb):
		return backends.Record{}, err
	case rb.failedAt(0):
		return onGuard(ctx, election, value)
	}
	return backends.Record{}, ss.lockRefused(ctx, election, rb)
}

// lock runs the transaction "guard; lock the key with this session and the
// flags api.Lock uses; read it back". The lock's ModifyIndex is the token.
// A value holding tokenMark, which could pass for a proclaimed key's
// token, is refused without I/O.
func (ss *session) lock(ctx context.Context, election string, value []byte, guard *api.KVTxnOp) (backends.Record, error) {
	key := guard.Key
	if bytes.Contains(value, []byte(tokenMark)) {
		return backends.Record{}, fmt.Errorf("consul: create %q: the value holds the bytes %q that Proclaim keeps a token with", election, tokenMark)
	}
	resp, err := ss.s.txn(ctx, "create", election, api.TxnOps{
		{KV: guard},
		{KV: &api.KVTxnOp{Verb: api.KVLock, Key: key, Value: value, Flags: api.LockFlagValue, Session: ss.id}},
		{KV: &api.KVTxnOp{Verb: api.KVGet, Key: key}},
	})
	if err != nil {
		return backends.Record{}, err
	}
	p := lastKV(resp.Results)
	if p == nil || p.Session != ss.id {
		return backends.Record{}, fmt.Errorf("consul: create %q: the lock transaction returned %+v, not the key locked by session %s", election, p, ss.id)
	}
	ss.hold(key, tokenOf(p), p.ModifyIndex)
	return record(election, p, p.ModifyIndex), nil
}

// createExisting reads a key Create found present and acts on what it
// read: it reports the holder, or takes the key if no session holds it or
// it is gone. Taking it is guarded by the state read, so if the key
// changes again in between, Create fails with a plain error instead of
// going round.
func (ss *session) createExisting(ctx context.Context, election string, value []byte) (backends.Record, error) {
	p, rev, err := ss.s.read(ctx, election)
	if err != nil {
		return backends.Record{}, ss.s.classify("create", election, ctx, err)
	}
	switch {
	case p == nil: // deleted since the transaction, as by a resign
		guard := &api.KVTxnOp{Verb: api.KVCheckNotExists, Key: ss.s.key(election)}
		return ss.acquire(ctx, election, value, guard, changed)
	case p.Flags != api.LockFlagValue:
		return backends.Record{}, fmt.Errorf("consul: create %q: key %q has flags %#x, not api.LockFlagValue %#x: %w",
			election, p.Key, p.Flags, uint64(api.LockFlagValue), api.ErrLockConflict)
	case p.Session == ss.id:
		ss.hold(p.Key, tokenOf(p), p.ModifyIndex)
		return record(election, p, rev), nil
	case p.Session != "":
		return record(election, p, rev), fmt.Errorf("consul: create %q: %w (held by session %s)", election, backends.ErrKeyExists, p.Session)
	}
	guard := &api.KVTxnOp{Verb: api.KVCheckIndex, Key: p.Key, Index: p.ModifyIndex}
	return ss.acquire(ctx, election, value, guard, changed)
}

// changed is the outcome of taking an unlocked key that changed between
// the read and the lock.
func changed(_ context.Context, election string, _ []byte) (backends.Record, error) {
	return backends.Record{}, fmt.Errorf("consul: create %q: the key changed while being acquired; try again", election)
}

// lockRefused explains a lock Consul refused on a key no session held: the
// session is gone, or the key's lock-delay is in force.
func (ss *session) lockRefused(ctx context.Context, election string, rb *rolledBack) error {
	q := (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx)
	info, _, err := ss.s.c.Session().Info(ss.id, q)
	if err != nil {
		return ss.s.classify("create", election, ctx, fmt.Errorf("%w; looking up session %s: %w", rb, ss.id, err))
	}
	if info == nil {
		return fmt.Errorf("consul: create %q: %w: session %s: %w", election, backends.ErrSessionExpired, ss.id, rb)
	}
	return fmt.Errorf("consul: create %q: Consul refused to lock the free key, most likely for its lock-delay after its holder's session ended; try again: %w", election, rb)
}
