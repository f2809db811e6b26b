package consul

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// queuePrefix returns the KV prefix of election's queue entries:
// Prefix + backends.QueueSegment + "/" + election + "/~". A session's entry
// is that prefix + its session ID, locked ("acquired") by the session, so
// Consul deletes it when the session is invalidated (the sessions'
// behavior is "delete"). Its token is its CreateIndex and its owner the
// session ID. No election name segment begins with '~', so the entries of
// election "a/b" are not under the prefix of "a".
func (s *store) queuePrefix(election string) string { return keys.Queue(s.prefix, election) }

// Enqueue locks the session's entry with the session and reads it back, in
// one transaction. Locking a key the session already holds keeps its
// CreateIndex, so a repeated Enqueue returns the same entry (Token), with a
// Revision that is the index of the transaction (the entry's ModifyIndex,
// which the relock moves on). A fresh entry's CreateIndex is the index of
// the transaction that created it, greater than that of every entry
// created before. If Consul refuses the lock, Enqueue looks the session
// up: a session that no longer exists is an error wrapping
// backends.ErrSessionExpired, and any other refusal a plain error. A
// refused lock leaves no entry: the transaction is rolled back.
func (ss *session) Enqueue(ctx context.Context, election string) (backends.Record, error) {
	s := ss.s
	key := s.queuePrefix(election) + ss.id
	resp, err := s.txn(ctx, "enqueue", election, api.TxnOps{
		{KV: &api.KVTxnOp{Verb: api.KVLock, Key: key, Session: ss.id}},
		{KV: &api.KVTxnOp{Verb: api.KVGet, Key: key}},
	})
	var rb *rolledBack
	switch {
	case errors.As(err, &rb):
		return backends.Record{}, s.ownRefused(ctx, "enqueue", election, ss.id, rb)
	case err != nil:
		return backends.Record{}, err
	}
	p := lastKV(resp.Results)
	if p == nil || p.Session != ss.id {
		return backends.Record{}, fmt.Errorf("consul: enqueue %q: the lock transaction returned %+v, not the entry locked by session %s", election, p, ss.id)
	}
	return backends.Record{Election: election, Owner: ss.id, Token: p.CreateIndex, Revision: p.ModifyIndex}, nil
}

// ownRefused explains a lock Consul refused on a session's own key, a
// queue entry or a roster record (op names the call): the session is gone
// (Consul refuses a lock by an unknown session), or something else went
// wrong. No other session can hold the key, which is this session's own,
// nor can a lock-delay be in force on it: that is armed only when the
// session holding the key is invalidated.
func (s *store) ownRefused(ctx context.Context, op, election, id string, rb *rolledBack) error {
	q := (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx)
	info, _, err := s.c.Session().Info(id, q)
	if err != nil {
		return s.classify(op, election, ctx, fmt.Errorf("%w; looking up session %s: %w", rb, id, err))
	}
	if info == nil {
		return fmt.Errorf("%s: %w: session %s: %w", opName(op, election), backends.ErrSessionExpired, id, rb)
	}
	return fmt.Errorf("%s: Consul refused to lock the key of live session %s: %w", opName(op, election), id, rb)
}

// Ahead lists election's entries with a consistent read and returns the
// one with the greatest CreateIndex below token, with the index of the
// read as its Revision; or, if there is none, a Record with Token 0. Only
// a key locked by the session it is named after is an entry: a key that
// no session holds (or any other key under the prefix) is ignored.
func (s *store) Ahead(ctx context.Context, election string, token uint64) (backends.Record, error) {
	prefix := s.queuePrefix(election)
	q := (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx)
	pairs, meta, err := s.kv.List(prefix, q)
	if err != nil {
		return backends.Record{}, s.classify("queue ahead", election, ctx, err)
	}
	rec := backends.Record{Election: election, Revision: meta.LastIndex}
	for _, p := range pairs {
		if isEntry(p, prefix) && p.CreateIndex < token && p.CreateIndex > rec.Token {
			rec.Token, rec.Owner = p.CreateIndex, p.Session
		}
	}
	return rec, nil
}

// awaitGone runs blocking queries on the entry's key, the first from
// index 0 (an immediate read), each next one from the index the last
// returned (see nextIndex), until the key is no longer the entry as read
// (see unchanged): it is absent, another incarnation (another
// CreateIndex), no longer held by its session, or rewritten after
// entry.Revision (its ModifyIndex moved past it); it returns nil then.
// A query whose wait time runs out with the entry in place is sent
// again. It returns the client's error as it came.
func (s *store) awaitGone(ctx context.Context, entry backends.Record) error {
	prefix := s.queuePrefix(entry.Election)
	key := prefix + entry.Owner
	var idx uint64
	for {
		p, meta, err := s.blockingGet(ctx, key, idx)
		if err != nil {
			return err
		}
		if !unchanged(p, prefix, entry) {
			return nil
		}
		idx = nextIndex(idx, meta.LastIndex)
	}
}

// Dequeue reads the entry's key consistently and, if it is still the
// entry (locked by its owner, with CreateIndex Token), deletes it with a
// check-and-set on the ModifyIndex it read, so that it never deletes a
// later incarnation. A key that is absent, another incarnation or no
// longer held is left alone, and Dequeue returns nil. If the key changes
// between the read and the delete, Dequeue returns a plain error and the
// caller may call it again. Deleting the entry arms no lock-delay.
func (s *store) Dequeue(ctx context.Context, entry backends.Record) error {
	prefix := s.queuePrefix(entry.Election)
	q := (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx)
	p, _, err := s.kv.Get(prefix+entry.Owner, q)
	if err != nil {
		return s.classify("dequeue", entry.Election, ctx, err)
	}
	if !isEntry(p, prefix) || p.CreateIndex != entry.Token {
		return nil
	}
	ok, _, err := s.kv.DeleteCAS(&api.KVPair{Key: p.Key, ModifyIndex: p.ModifyIndex}, writeOpts(ctx))
	switch {
	case err != nil:
		return s.classify("dequeue", entry.Election, ctx, err)
	case !ok:
		return fmt.Errorf("consul: dequeue %q: the entry of session %s changed while being deleted; try again", entry.Election, entry.Owner)
	}
	return nil
}

// isEntry reports whether p, read under prefix, is a queue entry: a key
// locked by the session whose ID follows the prefix.
func isEntry(p *api.KVPair, prefix string) bool {
	return p != nil && p.Session != "" && p.Key == prefix+p.Session
}

// unchanged reports whether p, read under prefix, is still entry as it
// was read at entry.Revision (by Enqueue or Ahead): the same incarnation
// (CreateIndex entry.Token), held, and not written since (ModifyIndex at
// most entry.Revision). awaitGone waits for it to turn false.
func unchanged(p *api.KVPair, prefix string, entry backends.Record) bool {
	return isEntry(p, prefix) && p.CreateIndex == entry.Token && p.ModifyIndex <= entry.Revision
}
