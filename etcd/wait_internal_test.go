package etcd

import (
	"testing"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

// TestChangeSkipsPastEvents is the regression test of a violation the
// fault suite's history checker found on a 3-node cluster (check a: a
// leader "lost" its key 14 ms after winning and won it again with the same
// token). The new leader's Wait opened its watch on a member still behind
// its own create: the watch replayed the deletion of the previous holder's
// key, which Wait took for the loss of its own. Events at or before the
// state Wait compares with must be skipped; later ones still count.
func TestChangeSkipsPastEvents(t *testing.T) {
	const lease = 0x2a
	ours := &mvccpb.KeyValue{Key: []byte("/leasehold/x"), Value: []byte("me"), CreateRevision: 12, ModRevision: 12, Version: 1, Lease: lease}
	known := backends.Record{Election: "x", Value: ours.Value, Token: 12, Owner: leaseID(lease), Revision: 12}
	prev := &mvccpb.KeyValue{Key: ours.Key, Value: []byte("before"), CreateRevision: 9, ModRevision: 9, Version: 1, Lease: 7}
	replay := []*clientv3.Event{
		{Type: clientv3.EventTypePut, Kv: prev},
		{Type: clientv3.EventTypeDelete, Kv: &mvccpb.KeyValue{Key: ours.Key, ModRevision: 11}},
		{Type: clientv3.EventTypePut, Kv: ours},
	}
	noTerm := func(rev uint64) (*mvccpb.KeyValue, error) {
		t.Fatalf("change read the term key at %d for a first put", rev)
		return nil, nil
	}
	if rec, ok, _ := change(known, known.Revision, replay, noTerm); ok {
		t.Fatalf("change on a replay of the past = %+v, want no change", rec)
	}
	if rec, ok, _ := change(known, 15, []*clientv3.Event{{Type: clientv3.EventTypeDelete, Kv: &mvccpb.KeyValue{Key: ours.Key, ModRevision: 14}}}, noTerm); ok {
		t.Fatalf("change on a delete the read at 15 reflects = %+v, want no change", rec)
	}
	later := append(replay, &clientv3.Event{Type: clientv3.EventTypeDelete, Kv: &mvccpb.KeyValue{Key: ours.Key, ModRevision: 13}})
	rec, ok, _ := change(known, known.Revision, later, noTerm)
	if !ok || rec.Exists() || rec.Revision != 13 {
		t.Fatalf("change with a later delete = %+v, %v; want the key absent at revision 13", rec, ok)
	}
}
