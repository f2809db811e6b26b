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

// A handover marker (backends.MarkedDeleter) is a key of its own beside
// the leader key (keys.Handover), put with the target's lease in the
// transaction that deletes the leader key, and deleted by the next
// Create's. Its value is the target's session ID and its queue entry's
// token, "<id> <entry>". A Get reads both keys; a Wait or WatchSet that
// sees the leader key deleted takes the marker put at the same revision.

// markerKey returns the etcd key of election's handover marker.
func (s *store) markerKey(election string) string { return keys.Handover(s.prefix, election) }

// DeleteMarked deletes the key and its term key if the key holds token
// (see held) and is bound to bs's lease, and puts the marker with m.To's
// lease, in one transaction, which deletes bs's record too with leave. A missing lease
// for m.To fails the whole transaction, which changes nothing. m.Ahead is
// not needed: a waiter's WatchSet learns of the marker from the prefix
// watch.
func (s *store) DeleteMarked(ctx context.Context, bs backends.Session, election string, token uint64, m backends.Mark, leave bool) error {
	to := m.To
	ss, err := s.own("delete", election, bs)
	if err != nil {
		return err
	}
	lease, err := strconv.ParseInt(to, 16, 64)
	if err != nil || lease == 0 {
		return fmt.Errorf("etcd: delete %q marked for %q: not an etcd session ID: %w", election, to, backends.ErrNoCandidate)
	}
	key := s.key(election)
	ops := []clientv3.Op{clientv3.OpDelete(key), clientv3.OpDelete(s.termKey(election)),
		clientv3.OpPut(s.markerKey(election), keys.Marker(to, m.Entry), clientv3.WithLease(clientv3.LeaseID(lease)))}
	if leave {
		ops = append(ops, clientv3.OpDelete(s.rosterPrefix(election)+ss.ID()))
	}
	resp, err := s.c.Txn(ctx).
		If(append(s.held(election, token), clientv3.Compare(clientv3.LeaseValue(key), "=", ss.id))...).
		Then(ops...).Commit()
	switch {
	case err != nil && errorsIs(err, rpctypes.ErrLeaseNotFound):
		return fmt.Errorf("etcd: delete %q marked for session %s: %w: %w", election, to, backends.ErrNoCandidate, err)
	case err != nil:
		return s.classify("delete", election, ctx, err)
	case !resp.Succeeded:
		return fmt.Errorf("etcd: delete %q at token %d: %w", election, token, backends.ErrNotFound)
	}
	return nil
}

// marker is a parsed handover marker; to is empty for none.
type marker struct {
	to    string
	entry uint64
	rev   uint64 // the marker's mod revision
}

// parseMarker parses the marker kv; nil or malformed: none.
func parseMarker(kv *mvccpb.KeyValue) marker {
	if kv == nil {
		return marker{}
	}
	to, entry, ok := keys.ParseMarker(kv.Value)
	if !ok {
		return marker{}
	}
	return marker{to: to, entry: entry, rev: uint64(kv.ModRevision)}
}

// markerAt reads election's marker as of revision rev and returns whom it
// names if it was put at rev, the revision a Wait saw the key deleted at.
// A read that fails (compacted, say) reports none: the marker only spares
// the target a race, and HoldOff bounds what a waiter gives up for it.
func (s *store) markerAt(ctx context.Context, election string, rev uint64) string {
	resp, err := s.c.Get(ctx, s.markerKey(election), clientv3.WithRev(int64(rev)))
	if err != nil || len(resp.Kvs) != 1 {
		return ""
	}
	if m := parseMarker(resp.Kvs[0]); m.rev == rev {
		return m.to
	}
	return ""
}
