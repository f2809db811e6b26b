package etcd

import (
	"fmt"
	"testing"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
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

// TestWatchSetRosterSeenBounded: the set's note of rosters that changed
// since the stream began stays within maxRosterSeen entries however many
// elections come and go, and a roster request from before it was last
// emptied is answered, early, while one from after it waits for a change
// of its own roster.
func TestWatchSetRosterSeenBounded(t *testing.T) {
	w := &watchSet{s: &store{prefix: DefaultPrefix}, kick: make(chan struct{}, 1),
		reqs: map[string]*request{}, byKey: map[string]*request{},
		rosters: map[string]*rosterReq{}, rosterSeen: map[string]uint64{}}
	w.onStream(clientv3.WatchResponse{Created: true, Header: &pb.ResponseHeader{Revision: 10}}, true)
	record := func(el string, rev int64) *clientv3.Event {
		key := keys.Roster(DefaultPrefix, el) + "abc"
		return &clientv3.Event{Type: clientv3.EventTypePut, Kv: &mvccpb.KeyValue{Key: []byte(key), ModRevision: rev}}
	}
	const n = 3 * maxRosterSeen
	for i := range n {
		w.onStream(clientv3.WatchResponse{Events: []*clientv3.Event{record(fmt.Sprint("el", i), int64(11+i))}}, true)
	}
	if len(w.rosterSeen) > maxRosterSeen {
		t.Fatalf("rosterSeen holds %d elections after %d came and went, want at most %d", len(w.rosterSeen), n, maxRosterSeen)
	}
	w.WaitRoster(1, "quiet", 0, 12)    // read before the last emptying
	w.WaitRoster(2, "quiet2", 0, 11+n) // read after every change
	w.coverRosters()
	if len(w.out) != 1 || w.out[0].Tag != 1 || !w.out[0].Roster {
		t.Fatalf("answers = %+v, want tag 1's alone (tag 2's roster did not change after its read)", w.out)
	}
	w.onStream(clientv3.WatchResponse{Events: []*clientv3.Event{record("quiet2", int64(12+n))}}, true)
	if len(w.out) != 2 || w.out[1].Tag != 2 {
		t.Fatalf("answers = %+v, want tag 2's after its roster changed", w.out)
	}
}
