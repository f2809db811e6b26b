package etcd

import (
	"context"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

// NewSession grants an etcd lease with the TTL rounded up to whole
// seconds, after the Store's first claim of the layout marker.
func (s *store) NewSession(ctx context.Context, ttl time.Duration) (backends.Session, error) {
	if err := s.layout.Claim(ctx); err != nil {
		return nil, err
	}
	secs := int64((ttl + time.Second - 1) / time.Second)
	resp, err := s.c.Grant(ctx, secs)
	if err != nil {
		return nil, s.classify("grant lease", "", ctx, err)
	}
	return &session{s: s, id: resp.ID, ttl: time.Duration(resp.TTL) * time.Second}, nil
}

type session struct {
	s   *store
	id  clientv3.LeaseID
	ttl time.Duration
}

func (ss *session) ID() string         { return leaseID(int64(ss.id)) }
func (ss *session) TTL() time.Duration { return ss.ttl }

// Create puts the key and its term key with the lease if the key's create
// revision is 0, or reads the key and its term key otherwise, in one
// transaction.
func (ss *session) Create(ctx context.Context, election string, value []byte) (backends.Record, error) {
	key, term := ss.s.key(election), ss.s.termKey(election)
	resp, err := ss.s.c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(value), clientv3.WithLease(ss.id)), clientv3.OpPut(term, "", clientv3.WithLease(ss.id))).
		Else(clientv3.OpGet(key), clientv3.OpGet(term)).Commit()
	if err != nil {
		return backends.Record{}, ss.s.classify("create", election, ctx, err)
	}
	rev := resp.Header.Revision
	rec := backends.Record{Election: election, Revision: uint64(rev)}
	if resp.Succeeded {
		rec.Value, rec.Token, rec.Owner = value, uint64(rev), ss.ID()
		return rec, nil
	}
	kvs := resp.Responses[0].GetResponseRange().Kvs
	if len(kvs) == 0 { // deleted between compare and get: impossible in one txn
		return rec, fmt.Errorf("etcd: create %q: key vanished inside a transaction", election)
	}
	fill(&rec, kvs[0], only(resp.Responses[1]))
	if kvs[0].Lease == int64(ss.id) {
		return rec, nil
	}
	return rec, fmt.Errorf("etcd: create %q: %w (held by lease %s)", election, backends.ErrKeyExists, rec.Owner)
}

// KeepAlive sends one lease keep-alive.
func (ss *session) KeepAlive(ctx context.Context) error {
	resp, err := ss.s.c.KeepAliveOnce(ctx, ss.id)
	if err != nil {
		return ss.s.classify("keep lease "+ss.ID()+" alive", "", ctx, err)
	}
	if resp.TTL <= 0 {
		return fmt.Errorf("etcd: keep lease %s alive: %w", ss.ID(), backends.ErrSessionExpired)
	}
	return nil
}

// Close revokes the lease, deleting every key bound to it.
func (ss *session) Close(ctx context.Context) error {
	_, err := ss.s.c.Revoke(ctx, ss.id)
	if err != nil && !errorsIs(err, rpctypes.ErrLeaseNotFound) {
		return ss.s.classify("revoke lease "+ss.ID(), "", ctx, err)
	}
	return nil
}
