package consul

import (
	"context"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// layoutVersion is the version of the key layout this adapter reads and
// writes under its prefix (see backends.Layout).
const layoutVersion = 1

// newLayout returns the Layout of s's prefix.
func newLayout(s *store) *backends.Layout {
	return &backends.Layout{Store: "consul", Prefix: s.prefix, Version: layoutVersion,
		Read: s.readLayout, Create: s.createLayout}
}

// readLayout reads the layout marker (keys.Layout) with a consistent read.
func (s *store) readLayout(ctx context.Context) ([]byte, bool, error) {
	q := (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx)
	p, _, err := s.kv.Get(keys.Layout(s.prefix), q)
	switch {
	case err != nil:
		return nil, false, s.classify("read the layout marker", "", ctx, err)
	case p == nil:
		return nil, false, nil
	}
	return p.Value, true, nil
}

// createLayout writes the layout marker with a check-and-set at index 0,
// which succeeds only if the key does not exist, and reads it if it does.
func (s *store) createLayout(ctx context.Context, value []byte) ([]byte, error) {
	ok, _, err := s.kv.CAS(&api.KVPair{Key: keys.Layout(s.prefix), Value: value}, writeOpts(ctx))
	switch {
	case err != nil:
		return nil, s.classify("write the layout marker", "", ctx, err)
	case ok:
		return value, nil
	}
	held, _, err := s.readLayout(ctx)
	return held, err
}
