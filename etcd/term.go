package etcd

import (
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

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
// A pass keeps its target in the term key's value ("<to> <entry>", as
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
