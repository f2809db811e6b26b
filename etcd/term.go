package etcd

import (
	"context"
	"fmt"
	"strconv"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// A term key (keys.Term) sits beside each leader key, put with the
// holder's lease in the transaction that makes the holder leader: a
// Create, or a Pass, which puts the leader key on the target's lease. A
// put keeps a key's create revision, so a passed key's token cannot be
// its create revision: the token is the term key's mod revision, the
// revision of the write that made the holder leader. For a created key
// that is its create revision, as before term keys. Every release deletes
// the term key with the leader key, and the two share a lease, so they
// also end together.
//
// A leader key that an earlier version created has no term key; its token
// is its create revision (see tokenOf). Earlier versions read a passed
// key's token as its create revision, the token of the term before the
// pass, so package lease passes a key only to a candidate whose record
// says it takes a passed key up (core.Candidate.Takes). A Pass keeps the
// target's handover marker in the term key's value ("<to> <entry>", as
// keys.Marker), for the WatchSets of those in line ahead of it.

// termKey returns the etcd key of election's term key.
func (s *store) termKey(election string) string { return keys.Term(s.prefix, election) }

// tokenOf returns the token of leader key kv given its term key term (nil:
// absent): the term key's mod revision if it is that of kv's term, that
// is, on kv's lease and written at or after kv was created; else kv's
// create revision.
func tokenOf(kv, term *mvccpb.KeyValue) uint64 {
	if term != nil && term.Lease == kv.Lease && term.ModRevision >= kv.CreateRevision {
		return uint64(term.ModRevision)
	}
	return uint64(kv.CreateRevision)
}

// held returns the comparisons that hold while election's leader key is
// the term of token: its term key was written at token and the leader key
// exists and was created at or before it. A term that an earlier version
// created, with no term key, fails them; this version writes to no such
// term.
func (s *store) held(election string, token uint64) []clientv3.Cmp {
	key := s.key(election)
	return []clientv3.Cmp{
		clientv3.Compare(clientv3.ModRevision(s.termKey(election)), "=", int64(token)),
		clientv3.Compare(clientv3.CreateRevision(key), ">", 0),
		clientv3.Compare(clientv3.CreateRevision(key), "<", int64(token)+1),
	}
}

// Pass puts the leader key with value on to's lease and the term key with
// it, in one transaction guarded by held, "the key is on s's lease" and
// "to's roster record exists"; with leave it deletes s's record too. The
// term key's new mod revision, the transaction's, is the new token. A
// refused transaction reads the key, its term key and to's record to say
// why: ErrNotFound if the key is not s's at token, else ErrNoCandidate.
// A lease to that no longer exists fails the transaction (etcd: "requested
// lease not found"), with ErrNoCandidate.
func (s *store) Pass(ctx context.Context, bs backends.Session, election string, token uint64, to string, entry uint64, value []byte, leave bool) (backends.Record, error) {
	ss, err := s.own("pass", election, bs)
	if err != nil {
		return backends.Record{}, err
	}
	lease, perr := strconv.ParseInt(to, 16, 64)
	if perr != nil || lease == 0 || lease == int64(ss.id) {
		return backends.Record{}, fmt.Errorf("etcd: pass %q to %q: not another etcd session: %w", election, to, backends.ErrNoCandidate)
	}
	key, record := s.key(election), s.rosterPrefix(election)+to
	ops := []clientv3.Op{
		clientv3.OpPut(key, string(value), clientv3.WithLease(clientv3.LeaseID(lease))),
		clientv3.OpPut(s.termKey(election), keys.Marker(to, entry), clientv3.WithLease(clientv3.LeaseID(lease))),
	}
	if leave {
		ops = append(ops, clientv3.OpDelete(s.rosterPrefix(election)+ss.ID()))
	}
	cmps := append(s.held(election, token), clientv3.Compare(clientv3.LeaseValue(key), "=", ss.id),
		clientv3.Compare(clientv3.CreateRevision(record), ">", 0))
	resp, err := s.c.Txn(ctx).If(cmps...).Then(ops...).
		Else(clientv3.OpGet(key), clientv3.OpGet(s.termKey(election))).Commit()
	switch {
	case err != nil && errorsIs(err, rpctypes.ErrLeaseNotFound):
		return backends.Record{}, fmt.Errorf("etcd: pass %q to session %s: %w: %w", election, to, backends.ErrNoCandidate, err)
	case err != nil:
		return backends.Record{}, s.classify("pass", election, ctx, err)
	case !resp.Succeeded:
		kv, term := only(resp.Responses[0]), only(resp.Responses[1])
		if kv == nil || kv.Lease != int64(ss.id) || tokenOf(kv, term) != token {
			return backends.Record{}, fmt.Errorf("etcd: pass %q at token %d by lease %s: %w", election, token, ss.ID(), backends.ErrNotFound)
		}
		return backends.Record{}, fmt.Errorf("etcd: pass %q to session %s: no candidate record: %w", election, to, backends.ErrNoCandidate)
	}
	rev := uint64(resp.Header.Revision)
	return backends.Record{Election: election, Value: value, Token: rev, Owner: to, Revision: rev}, nil
}

// CommittedWaits reports true: Wait and WatchSet answers are etcd watch
// events or linearizable reads, states etcd committed at their revisions
// (see backends.CommittedWaits).
func (s *store) CommittedWaits() bool { return true }

// termAt reads election's term key as of revision rev: nil if absent
// then.
func (s *store) termAt(ctx context.Context, election string, rev uint64) (*mvccpb.KeyValue, error) {
	resp, err := s.c.Get(ctx, s.termKey(election), clientv3.WithRev(int64(rev)))
	if err != nil {
		return nil, s.classify("read term", election, ctx, err)
	}
	if len(resp.Kvs) == 1 {
		return resp.Kvs[0], nil
	}
	return nil, nil
}
