package consul

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

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
		return nil, 0, classify("roster list", election, ctx, err)
	}
	recs := s.roster(election, pairs)
	s.empties.note(election, len(recs) == 0, meta.LastIndex)
	return recs, meta.LastIndex, nil
}

// WaitList runs blocking queries on the list of election's records, the
// first from revision, each next one from the index the last returned
// (see nextIndex), until one answers with another index, and returns that
// list and index; a list whose index moved on after revision returns at
// once. Consul compacts nothing: WaitList never returns
// backends.ErrCompacted.
//
// The index of a list is that of its latest record or deletion, except
// for a prefix that holds no records and no deletions Consul still
// remembers: then it is the index of the whole KV store, which any write
// moves on. So an empty answer after an empty roster is no change, and
// WaitList goes on waiting, if this Store returned the roster at revision
// and it was empty (see emptyRosters); otherwise it returns the empty
// roster, possibly early.
func (s *store) WaitList(ctx context.Context, election string, revision uint64) ([]backends.Record, uint64, error) {
	idx := revision
	for {
		q := (&api.QueryOptions{WaitIndex: idx, WaitTime: s.waitTime}).WithContext(ctx)
		pairs, meta, err := s.kv.List(s.rosterPrefix(election), q)
		if err != nil {
			return nil, 0, classify("roster wait", election, ctx, err)
		}
		recs, last := s.roster(election, pairs), meta.LastIndex
		empty := len(recs) == 0
		if last != idx && !(empty && s.empties.was(election, revision)) {
			s.empties.note(election, empty, last)
			return recs, last, nil
		}
		if empty && last != idx { // the KV store moved on, the roster did not
			s.empties.note(election, true, last)
			revision = last
		}
		idx = nextIndex(idx, last)
	}
}

// emptyRosters remembers, for each election whose roster the Store last
// returned empty, the index it was read at, so that WaitList can tell an
// empty roster's index moving on with the whole KV store from the roster
// changing. It holds one entry per such election, dropped when the Store
// returns that roster non-empty. The zero value is ready to use.
type emptyRosters struct {
	mu sync.Mutex
	at map[string]uint64
}

// note records that election's roster read at index was empty, or not.
func (e *emptyRosters) note(election string, empty bool, index uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case !empty:
		delete(e.at, election)
	case e.at == nil:
		e.at = map[string]uint64{election: index}
	default:
		e.at[election] = index
	}
}

// was reports whether the Store returned election's roster empty as read
// at index, as its latest for that election.
func (e *emptyRosters) was(election string, index uint64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	at, ok := e.at[election]
	return ok && at == index
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
