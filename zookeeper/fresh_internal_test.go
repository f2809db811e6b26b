package zookeeper

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/watchset"
)

// TestTakeFreshByLink: a read of requests notified since their last read
// skips its sync only on the connection that notified them all: the
// server that sent the notification has the change, another connection's
// server (on an ensemble) may not have it yet. Requests notified by two
// connections, or not at all, are read after a sync; a notification
// counts for one read.
func TestTakeFreshByLink(t *testing.T) {
	st := &stream{routes: map[string]route{}, fresh: map[reqKey]*link{}, checks: map[string]bool{},
		passed: map[string]uint64{}}
	l1, l2 := &link{}, &link{}
	req := func(el string) watchset.Request {
		return watchset.Request{Kind: watchset.Wait, Known: backends.Record{Election: el}}
	}
	notify := func(l *link, el string) {
		st.watch("/p/"+el, route{el: el, kind: watchset.Wait, l: l})
		if _, ok := st.fired(note{l, zk.Event{Type: zk.EventNodeDataChanged, Path: "/p/" + el}}); !ok {
			t.Fatalf("the notification of %s was not taken", el)
		}
	}
	notify(l1, "a")
	notify(l1, "b")
	if got, _ := st.takeFresh([]watchset.Request{req("a"), req("b")}); got != l1 {
		t.Fatalf("a and b notified by l1: takeFresh = %p, want l1 %p", got, l1)
	}
	if got, _ := st.takeFresh([]watchset.Request{req("a")}); got != nil {
		t.Fatalf("a read since its notification: takeFresh = %p, want nil (sync)", got)
	}
	notify(l1, "a")
	notify(l2, "b")
	if got, _ := st.takeFresh([]watchset.Request{req("a"), req("b")}); got != nil {
		t.Fatalf("a notified by l1 and b by l2: takeFresh = %p, want nil (sync)", got)
	}
	notify(l2, "c")
	if got, _ := st.takeFresh([]watchset.Request{req("c"), req("d")}); got != nil {
		t.Fatalf("d not notified: takeFresh = %p, want nil (sync)", got)
	}
}
