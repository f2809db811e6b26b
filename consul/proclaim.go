package consul

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// Proclaim rewrites election's leader key in a transaction guarded by
// "the key holds token" (see heldTxn) and "s holds the lock": it locks the
// key again with s, which keeps its session, CreateIndex and LockIndex,
// and writes value with a trailer that keeps token (see held), the flags
// still api.LockFlagValue, and reads it back. The ModifyIndex moves on;
// the token does not. It is one request, or two if the session does not
// know the key's last ModifyIndex (heldTxn). A key that is absent,
// unlocked, or holds another token or session is an error wrapping
// backends.ErrNotFound, and also backends.ErrSessionExpired if s no
// longer exists (one more request tells). A value holding tokenMark is
// refused without I/O.
func (ss *session) Proclaim(ctx context.Context, election string, token uint64, value []byte) (backends.Record, error) {
	s := ss.s
	if err := holderCall("proclaim", election, token, value); err != nil {
		return backends.Record{}, err
	}
	key := s.key(election)
	resp, err := s.heldTxn(ctx, "proclaim", election, token, ss.index(key, token), api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVCheckSession, Key: key, Session: ss.id}},
		{KV: &api.KVTxnOp{Verb: api.KVLock, Key: key, Value: withToken(value, token), Flags: api.LockFlagValue, Session: ss.id}},
		{KV: &api.KVTxnOp{Verb: api.KVGet, Key: key}},
	})
	var rb *rolledBack
	switch {
	case errors.Is(err, errNotHeld), errors.As(err, &rb) && rb.failedAt(1):
		return backends.Record{}, s.notHeld(ctx, "proclaim", election, ss.id, token, err)
	case errors.As(err, &rb):
		return backends.Record{}, fmt.Errorf("consul: proclaim %q: %w", election, err)
	case err != nil:
		return backends.Record{}, err
	}
	p := lastKV(resp.Results)
	if p == nil || p.Session != ss.id || tokenOf(p) != token {
		return backends.Record{}, fmt.Errorf("consul: proclaim %q: the transaction returned %+v, not the key locked by session %s at token %d", election, p, ss.id, token)
	}
	ss.hold(key, token, p.ModifyIndex)
	return record(election, p, p.ModifyIndex), nil
}

// holderCall checks what Proclaim and Pass take, without I/O: value must
// not hold tokenMark, and token must not be 0 (ErrNotFound).
func holderCall(op, election string, token uint64, value []byte) error {
	switch {
	case bytes.Contains(value, []byte(tokenMark)):
		return fmt.Errorf("%s: the value holds the bytes %q that Proclaim keeps the token with", opName(op, election), tokenMark)
	case token == 0:
		return fmt.Errorf("%s: token 0: %w", opName(op, election), backends.ErrNotFound)
	}
	return nil
}

// notHeld is the error of a call on a leader key that s does not hold at
// token: it wraps backends.ErrNotFound and, if the session is gone,
// backends.ErrSessionExpired too.
func (s *store) notHeld(ctx context.Context, op, election, id string, token uint64, cause error) error {
	q := (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx)
	info, _, err := s.c.Session().Info(id, q)
	switch {
	case err != nil:
		return s.classify(op, election, ctx, fmt.Errorf("%w: %w; looking up session %s: %w", backends.ErrNotFound, cause, id, err))
	case info == nil:
		return fmt.Errorf("%s: %w: %w: session %s: %w", opName(op, election), backends.ErrNotFound, backends.ErrSessionExpired, id, cause)
	}
	return fmt.Errorf("%s at token %d: %w: the key is not session %s's at that token: %w", opName(op, election), token, backends.ErrNotFound, id, cause)
}
