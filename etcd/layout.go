package etcd

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// layoutVersion is the version of the key layout this adapter reads and
// writes under its prefix (see backends.Layout).
const layoutVersion = 1

// newLayout returns the Layout of s's prefix.
func newLayout(s *store) *backends.Layout {
	return &backends.Layout{Store: "etcd", Prefix: s.prefix, Version: layoutVersion,
		Read: s.readLayout, Create: s.createLayout}
}

// readLayout reads the layout marker (keys.Layout).
func (s *store) readLayout(ctx context.Context) ([]byte, bool, error) {
	resp, err := s.c.Get(ctx, keys.Layout(s.prefix))
	if err != nil {
		return nil, false, s.classify("read the layout marker", "", ctx, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, false, nil
	}
	return resp.Kvs[0].Value, true, nil
}

// createLayout puts the layout marker if its create revision is 0, or
// reads it otherwise, in one transaction.
func (s *store) createLayout(ctx context.Context, value []byte) ([]byte, error) {
	key := keys.Layout(s.prefix)
	resp, err := s.c.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(value))).Else(clientv3.OpGet(key)).Commit()
	if err != nil {
		return nil, s.classify("write the layout marker", "", ctx, err)
	}
	if resp.Succeeded {
		return value, nil
	}
	return only(resp.Responses[0]).GetValue(), nil
}
