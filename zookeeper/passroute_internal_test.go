package zookeeper

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/internal/watchset"
)

// TestPassDropsAheadRoute: the notification of a pass to a waiter's own
// entry has the pass read (by notify at once; here the Store is closed,
// and the read's failure asks for the request's read, checking the
// pointer) and drops the route of the entry ahead, whose deletion the
// same multi makes: that deletion's notification, coming apart, calls
// for no second read, which would be three reads while the first tells
// the pass. A deletion with no pass before it still has the request read.
func TestPassDropsAheadRoute(t *testing.T) {
	l := &link{}
	ahead, own := "/p/~queue/el/~a-0000000001", "/p/~queue/el/~b-0000000002"
	routes := func(st *stream) {
		st.watch(ahead, route{el: "el", kind: watchset.Gone, l: l, entry: true, hasOwn: true, owner: "a"})
		st.watch(own, route{el: "el", kind: watchset.Gone, l: l, mine: true, ahead: ahead})
	}
	newStream := func() *stream {
		return &stream{s: &store{closed: true}, wake: make(chan struct{}, 1), opened: true, routes: map[string]route{},
			fresh: map[reqKey]*link{}, checks: map[string]bool{}, passed: map[string]uint64{}}
	}
	st := newStream()
	routes(st)
	st.notify(l, zk.Event{Type: zk.EventNodeDataChanged, Path: own})
	if b := st.Next(struct{}{}, true); len(b.Facts) != 1 || b.Facts[0].What != watchset.Reread || !st.checks["el"] {
		t.Fatalf("the pass's notification: %+v (check %v); want a Reread of its request, checking the pointer", b, st.checks["el"])
	}
	if f, ok := st.fired(note{l, zk.Event{Type: zk.EventNodeDeleted, Path: ahead}}); ok {
		t.Fatalf("the deletion of the entry ahead after the pass: %+v; want none", f)
	}
	st = newStream()
	routes(st)
	if f, ok := st.fired(note{l, zk.Event{Type: zk.EventNodeDataChanged, Path: own}}); !ok || f.What != watchset.Reread || !st.checks["el"] {
		t.Fatalf("the pass's notification, taken by Next: %+v, %v (check %v); want a Reread of its request, checking its own entry", f, ok, st.checks["el"])
	}
	if f, ok := st.fired(note{l, zk.Event{Type: zk.EventNodeDeleted, Path: ahead}}); ok {
		t.Fatalf("the deletion of the entry ahead after the pass: %+v; want none", f)
	}

	st = newStream()
	routes(st)
	if f, ok := st.fired(note{l, zk.Event{Type: zk.EventNodeDeleted, Path: ahead}}); !ok || f.What != watchset.Reread {
		t.Fatalf("the deletion of the entry ahead with no pass: %+v, %v; want a Reread", f, ok)
	}
}
