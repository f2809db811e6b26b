package consul

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// rosterPrefix returns the KV prefix of election's roster records (see
// keys.Roster). A session's record is that prefix + its session ID,
// locked by the session, as a queue entry is (see queuePrefix): Consul
// deletes it when the session is invalidated. Its token is its
// CreateIndex and its owner the session ID.
func (s *store) rosterPrefix(election string) string { return keys.Roster(s.prefix, election) }

// Join locks the session's record with the session and value and reads
// it back, in one transaction. Locking a key the session already holds
// keeps its CreateIndex (Token) and replaces its value. The Record's
// Revision is the record's ModifyIndex. If Consul refuses the lock, Join
// looks the session up: one that no longer exists is an error wrapping
// backends.ErrSessionExpired.
func (ss *session) Join(ctx context.Context, election string, value []byte) (backends.Record, error) {
	s := ss.s
	key := s.rosterPrefix(election) + ss.id
	resp, err := s.txn(ctx, "join", election, api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVLock, Key: key, Value: value, Session: ss.id}},
		{KV: &api.KVTxnOp{Verb: api.KVGet, Key: key}},
	})
	var rb *rolledBack
	switch {
	case errors.As(err, &rb):
		return backends.Record{}, s.ownRefused(ctx, "join", election, ss.id, rb)
	case err != nil:
		return backends.Record{}, err
	}
	p := lastKV(resp.Results)
	if p == nil || p.Session != ss.id {
		return backends.Record{}, fmt.Errorf("consul: join %q: the lock transaction returned %+v, not the record locked by session %s", election, p, ss.id)
	}
	return backends.Record{Election: election, Owner: ss.id, Value: p.Value, Token: p.CreateIndex, Revision: p.ModifyIndex}, nil
}

// Leave deletes the session's record in a transaction guarded by "the
// session holds it" (check-session), one request. A record that is absent
// or not held by the session is left alone, and Leave returns nil.
func (ss *session) Leave(ctx context.Context, election string) error {
	s := ss.s
	key := s.rosterPrefix(election) + ss.id
	_, err := s.txn(ctx, "leave", election, api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVCheckSession, Key: key, Session: ss.id}},
		{KV: &api.KVTxnOp{Verb: api.KVDelete, Key: key}},
	})
	var rb *rolledBack
	switch {
	case errors.As(err, &rb) && rb.failedAt(0):
		return nil
	case errors.As(err, &rb):
		return fmt.Errorf("consul: leave %q: %w", election, err)
	}
	return err
}

// List lists election's records with a consistent read and returns them
// in CreateIndex order, with the index of the read. Only a key locked by
// the session it is named after is a record.
func (s *store) List(ctx context.Context, election string) ([]backends.Record, uint64, error) {
	if err := s.layout.Check(ctx); err != nil {
		return nil, 0, err
	}
	q := (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx)
	pairs, meta, err := s.kv.List(s.rosterPrefix(election), q)
	if err != nil {
		return nil, 0, s.classify("roster list", election, ctx, err)
	}
	recs := s.roster(election, pairs)
	return recs, meta.LastIndex, nil
}

// roster returns the records among pairs, listed under election's roster
// prefix, in CreateIndex order.
func (s *store) roster(election string, pairs api.KVPairs) []backends.Record {
	prefix := s.rosterPrefix(election)
	var recs []backends.Record
	for _, p := range pairs {
		if isEntry(p, prefix) {
			recs = append(recs, backends.Record{Election: election, Owner: p.Session, Value: p.Value, Token: p.CreateIndex})
		}
	}
	slices.SortFunc(recs, func(a, b backends.Record) int { return cmp.Compare(a.Token, b.Token) })
	return recs
}
