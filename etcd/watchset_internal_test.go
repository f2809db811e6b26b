package etcd

import (
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
)

// TestWatchSetSkipsPastEvents is TestChangeSkipsPastEvents for the set: a
// stream opened on a member behind the request's record replays events
// at or before it, which are not news; a request from before the stream's
// position is covered by a read, one from after it is not.
func TestWatchSetSkipsPastEvents(t *testing.T) {
	w := &watchSet{s: &store{prefix: DefaultPrefix}, kick: make(chan struct{}, 1),
		reqs: map[string]*request{}, byKey: map[string]*request{}}
	key := []byte(DefaultPrefix + "x")
	ours := &mvccpb.KeyValue{Key: key, Value: []byte("me"), CreateRevision: 12, ModRevision: 12, Lease: 0x2a}
	known := backends.Record{Election: "x", Value: ours.Value, Token: 12, Owner: leaseID(0x2a), Revision: 12}
	w.Wait(1, known)
	w.Wait(2, backends.Record{Election: "y", Revision: 5})
	w.onStream(clientv3.WatchResponse{Created: true, Header: &pb.ResponseHeader{Revision: 8}}, true)
	w.cover()
	if len(w.toRead) != 1 || w.toRead[0].known.Election != "y" {
		t.Fatalf("requests to read = %v, want y's alone (x's record is ahead of the stream)", w.toRead)
	}
	replay := []*clientv3.Event{
		{Type: clientv3.EventTypePut, Kv: &mvccpb.KeyValue{Key: key, Value: []byte("before"), CreateRevision: 9, ModRevision: 9, Lease: 7}},
		{Type: clientv3.EventTypeDelete, Kv: &mvccpb.KeyValue{Key: key, ModRevision: 11}},
		{Type: clientv3.EventTypePut, Kv: ours},
	}
	w.onStream(clientv3.WatchResponse{Events: replay}, true)
	if len(w.out) != 0 {
		t.Fatalf("answers on a replay of the past = %+v, want none", w.out)
	}
	w.onStream(clientv3.WatchResponse{Events: []*clientv3.Event{{Type: clientv3.EventTypeDelete, Kv: &mvccpb.KeyValue{Key: key, ModRevision: 13}}}}, true)
	if len(w.out) != 1 || w.out[0].Tag != 1 || w.out[0].Record.Exists() || w.out[0].Record.Revision != 13 {
		t.Fatalf("answers on a later delete = %+v, want x's, absent at revision 13", w.out)
	}
}
