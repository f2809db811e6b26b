package consul

import (
	"context"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
)

// Wait runs blocking queries on the key from known.Revision until one
// answers with a state that differs from known. A change made after
// known.Revision and before the call makes the first query return at once.
// A query that comes back with the same state (its wait time ran out, or,
// for an absent key, another key changed) is sent again from the index it
// returned.
func (s *store) Wait(ctx context.Context, known backends.Record) (backends.Record, error) {
	rec, err := s.awaitKey(ctx, known)
	if err != nil {
		return backends.Record{}, classify("wait", known.Election, ctx, err)
	}
	return rec, nil
}

// awaitKey is Wait, with the client's error as it came.
func (s *store) awaitKey(ctx context.Context, known backends.Record) (backends.Record, error) {
	el := known.Election
	idx := known.Revision
	for {
		q := (&api.QueryOptions{WaitIndex: idx, WaitTime: s.waitTime}).WithContext(ctx)
		p, meta, err := s.kv.Get(s.key(el), q)
		if err != nil {
			return backends.Record{}, err
		}
		rec := record(el, p, meta.LastIndex)
		if rec.Differs(known) {
			return rec, nil
		}
		idx = nextIndex(idx, meta.LastIndex)
	}
}
