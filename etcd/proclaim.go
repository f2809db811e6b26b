package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

// Proclaim puts the new value with the session's lease in a transaction
// guarded by "the key holds token" (see held) and its lease == the
// session's: the term key is left alone, so the Token stays.
func (ss *session) Proclaim(ctx context.Context, election string, token uint64, value []byte) (backends.Record, error) {
	s := ss.s
	if token == 0 {
		return backends.Record{}, fmt.Errorf("etcd: proclaim %q: token 0: %w", election, backends.ErrNotFound)
	}
	key := s.key(election)
	resp, err := s.c.Txn(ctx).
		If(append(s.held(election, token), clientv3.Compare(clientv3.LeaseValue(key), "=", ss.id))...).
		Then(clientv3.OpPut(key, string(value), clientv3.WithLease(ss.id))).Commit()
	if err != nil {
		return backends.Record{}, s.classify("proclaim", election, ctx, err)
	}
	if !resp.Succeeded {
		return backends.Record{}, fmt.Errorf("etcd: proclaim %q at token %d by lease %s: %w", election, token, ss.ID(), backends.ErrNotFound)
	}
	rev := uint64(resp.Header.Revision)
	return backends.Record{Election: election, Value: value, Token: token, Owner: ss.ID(), Revision: rev}, nil
}
