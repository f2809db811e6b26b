package etcd

import (
	"context"
	"fmt"
	"strconv"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// End deletes the key and its term key, or passes the key to req.To, in
// one transaction guarded by held and "the key is on the session's
// lease"; with req.Leave it deletes the session's record too.
func (ss *session) End(ctx context.Context, req backends.End) (backends.Record, error) {
	var more []clientv3.Op
	if req.Leave {
		more = append(more, clientv3.OpDelete(ss.s.rosterPrefix(req.Election)+ss.ID()))
	}
	if req.To != nil {
		return ss.pass(ctx, req, more)
	}
	return backends.Record{}, ss.release(ctx, req.Election, req.Token, more...)
}

// release deletes the key and its term key if the key holds token, and
// more keys in the same transaction.
func (ss *session) release(ctx context.Context, election string, token uint64, more ...clientv3.Op) error {
	resp, err := ss.s.c.Txn(ctx).
		If(ss.s.held(election, token)...).
		Then(append([]clientv3.Op{clientv3.OpDelete(ss.s.key(election)), clientv3.OpDelete(ss.s.termKey(election))}, more...)...).Commit()
	if err != nil {
		return ss.s.classify("delete", election, ctx, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("etcd: delete %q at token %d: %w", election, token, backends.ErrNotFound)
	}
	return nil
}

// pass puts the leader key with req.To.Value on the target's lease and
// the term key with it, guarded as release is and by "the target's
// roster record exists" and, for a target in line, "its queue entry has
// token req.To.Entry", with more ops. The term key's new mod revision, the
// transaction's, is the new token, and its value names the target and its
// entry (keys.Marker), for the WatchSets of those in line ahead of it;
// the target's queue entry, if any, is written too (wakeOp). A
// refused transaction reads the key and its term key to say why:
// ErrNotFound if the key is not the session's at req.Token, else
// ErrNoCandidate. A target lease that no longer exists fails the
// transaction (etcd: "requested lease not found"), with ErrNoCandidate.
func (ss *session) pass(ctx context.Context, req backends.End, more []clientv3.Op) (backends.Record, error) {
	s, election, to := ss.s, req.Election, req.To
	lease, perr := strconv.ParseInt(to.Session, 16, 64)
	if perr != nil || lease == 0 || lease == int64(ss.id) {
		return backends.Record{}, fmt.Errorf("etcd: pass %q to %q: not another etcd session: %w", election, to.Session, backends.ErrNoCandidate)
	}
	key := s.key(election)
	ops := append([]clientv3.Op{
		clientv3.OpPut(key, string(to.Value), clientv3.WithLease(clientv3.LeaseID(lease))),
		clientv3.OpPut(s.termKey(election), keys.Marker(to.Session, to.Entry), clientv3.WithLease(clientv3.LeaseID(lease))),
		s.wakeOp(election, to.Session),
	}, more...)
	cmps := append(s.held(election, req.Token), clientv3.Compare(clientv3.LeaseValue(key), "=", ss.id),
		clientv3.Compare(clientv3.CreateRevision(s.rosterPrefix(election)+to.Session), ">", 0))
	if to.Entry != 0 {
		cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(s.queuePrefix(election)+to.Session), "=", int64(to.Entry)))
	}
	resp, err := s.c.Txn(ctx).If(cmps...).Then(ops...).
		Else(clientv3.OpGet(key), clientv3.OpGet(s.termKey(election))).Commit()
	switch {
	case err != nil && errorsIs(err, rpctypes.ErrLeaseNotFound):
		return backends.Record{}, fmt.Errorf("etcd: pass %q to session %s: %w: %w", election, to.Session, backends.ErrNoCandidate, err)
	case err != nil:
		return backends.Record{}, s.classify("pass", election, ctx, err)
	case !resp.Succeeded:
		kv, term := only(resp.Responses[0]), only(resp.Responses[1])
		if kv == nil || kv.Lease != int64(ss.id) || tokenOf(kv, term) != req.Token {
			return backends.Record{}, fmt.Errorf("etcd: pass %q at token %d by lease %s: %w", election, req.Token, ss.ID(), backends.ErrNotFound)
		}
		return backends.Record{}, fmt.Errorf("etcd: pass %q to session %s: no candidate record or queue entry %d: %w", election, to.Session, to.Entry, backends.ErrNoCandidate)
	}
	rev := uint64(resp.Header.Revision)
	return backends.Record{Election: election, Value: to.Value, Token: rev, Owner: to.Session, Revision: rev}, nil
}

// wakeOp returns the op that rewrites session's queue entry in election,
// if it exists, keeping its value, lease and create revision (its
// token): a target waiting behind others watches its own entry
// (backends.WatchRequest.Mine), and reads the key when it is written.
func (s *store) wakeOp(election, session string) clientv3.Op {
	entry := s.queuePrefix(election) + session
	return clientv3.OpTxn([]clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(entry), ">", 0)},
		[]clientv3.Op{clientv3.OpPut(entry, "", clientv3.WithIgnoreValue(), clientv3.WithIgnoreLease())}, nil)
}
