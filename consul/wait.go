package consul

import (
	"context"

	"github.com/leasehold/leasehold/backends"
)

// awaitKey runs blocking queries on the key from known.Revision until
// one answers with a state that differs from known, and returns it, or
// the client's error as it came. A change made after known.Revision and
// before the call makes the first query return at once. A query that
// comes back with the same state (its wait time ran out, or, for an
// absent key, another key changed) is sent again from the index it
// returned.
func (s *store) awaitKey(ctx context.Context, known backends.Record) (backends.Record, error) {
	el := known.Election
	idx := known.Revision
	for {
		p, meta, err := s.blockingGet(ctx, s.key(el), idx)
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
