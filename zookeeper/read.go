package zookeeper

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// Get syncs the server it reads from with the leader, reads the election's
// pointer node and, if it names a lead node, whether that node exists, on
// the Store's reader: the connection of one of its sessions, or while it
// has none that can serve, a connection of its own (opened then, and
// closed once a session's can serve again). An empty pointer, or one
// whose lead node is gone (its session ended), gives a Record with Token
// 0. The Revision of a present key is the pointer's mzxid; that of an
// empty pointer too; that of a pointer whose lead node is gone the zxid
// the server had reached.
func (s *store) Get(ctx context.Context, election string) (backends.Record, error) {
	what := fmt.Sprintf("zookeeper: get %q", election)
	path, err := s.checkedPath(election)
	if err != nil {
		return backends.Record{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := s.layout.Check(ctx); err != nil {
		return backends.Record{}, err
	}
	rec, err := readFor(s, ctx, func(l *link) (backends.Record, error) {
		rec, _, err := s.readKey(l, election, path, true)
		return rec, err
	})
	if err != nil {
		return backends.Record{}, classifyRead(what, ctx, err)
	}
	return rec, nil
}

// Wait reads the election's pointer node with a data watch set by the
// same request, and returns the key it shows if that differs from known
// (another Token or Value): a pointer naming a holder other than known's
// is returned as a present key, a state the pointer's write committed at
// its mzxid (from an absent known, only if its lead node exists). If
// the key is as known, Wait also leaves an exists watch on the lead node,
// which tells that the holder's session ended, and waits for either
// watch; then it reads again, with no sync: the server that sent the
// notification has the change. The first read follows a sync, so a
// change already made at the leader is seen at once; a later one is seen
// when its notification arrives, about a round trip after it commits. A
// lead node found gone is an absent key.
//
// Wait reads and watches on the Store's reader (see Get). If that
// connection closes or its session expires before a watch fires, Wait
// reads again, after a sync, on the reader of the moment.
//
// ZooKeeper watches fire once and go-zookeeper cannot remove one: a watch
// left behind when ctx ends stays registered, without any goroutine, until
// the node's next change or the connection's end.
func (s *store) Wait(ctx context.Context, known backends.Record) (backends.Record, error) {
	what := fmt.Sprintf("zookeeper: wait %q", known.Election)
	path, err := s.checkedPath(known.Election)
	if err != nil {
		return backends.Record{}, fmt.Errorf("%s: %w", what, err)
	}
	for sync := true; ; {
		w, err := readFor(s, ctx, func(l *link) (watched, error) { return s.watchKey(l, known, path, sync, nil) })
		if err != nil {
			return backends.Record{}, classifyRead(what, ctx, err)
		}
		if w.rec.Differs(known) {
			return since(known, w.rec), nil
		}
		testHookWatching(known.Election)
		ev, err := awaitEvent(ctx, w.ev, w.lead)
		if err != nil {
			return backends.Record{}, classifyRead(what, ctx, err)
		}
		sync = ev.Type == zk.EventNotWatching // the connection went: read again after a sync
	}
}

// watched is the key read with watches left on it, on link l: ev on the
// pointer node, lead on its lead node (nil: none).
type watched struct {
	rec      backends.Record
	ev, lead <-chan zk.Event
	leadPath string
	l        *link
}

// watchKey reads the key on l with a watch on the pointer node, after a
// sync if asked. Unless the pointer names a holder other than known's,
// which it returns at once, it watches the lead node too: its deletion,
// or a lead node already gone, makes the key absent (so a Wait from an
// absent key does not return a holder whose session ended). onLead, unless nil, is told the lead node's path before
// its watch is set.
func (s *store) watchKey(l *link, known backends.Record, path string, sync bool, onLead func(string)) (watched, error) {
	election := known.Election
	if sync {
		if _, err := l.conn.Sync(path); err != nil {
			return watched{}, err
		}
	}
	ps, ev, err := getPointer(l, path, true)
	if err != nil {
		return watched{}, err
	}
	s.ptrs.saw(election, ps)
	w := watched{rec: ps.record(election, true, l), ev: ev, l: l}
	if !ps.led() || (w.rec.Differs(known) && known.Exists()) {
		return w, nil // a new holder, as the pointer's write committed it
	}
	if onLead != nil {
		onLead(ps.p.lead)
	}
	ok, _, lead, err := l.conn.ExistsW(ps.p.lead)
	if err != nil {
		return watched{}, err
	}
	if !ok {
		w.rec = ps.record(election, false, l)
	}
	w.lead, w.leadPath = lead, ps.p.lead
	return w, nil
}

// awaitEvent waits for one of the watches to fire and returns its event,
// which is an EventNotWatching if the watch ended unfired. A nil channel
// never fires.
func awaitEvent(ctx context.Context, ev, other <-chan zk.Event) (zk.Event, error) {
	select {
	case e := <-ev:
		return e, nil
	case e := <-other:
		return e, nil
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	}
}

// since returns rec, a state of known's key read after known, with its
// Revision above known's if rec is absent and known present: the key
// went after known.Revision.
func since(known, rec backends.Record) backends.Record {
	if !rec.Exists() && known.Exists() {
		rec.Revision = max(rec.Revision, known.Revision+1)
	}
	return rec
}
