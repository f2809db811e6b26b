package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// Get syncs the server it reads from with the leader and reads the
// election's node, on the Store's reader: the connection of one of its
// sessions, or while it has none that can serve, a connection of its own
// (opened then, and closed once a session's can serve again). An absent
// node gives a Record with Token 0; its Revision is the zxid the server
// had reached, and To names the target of the handover marker, if there
// is one and its target's node still exists (see mark).
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
		rec, err := readNode(l, election, path, true)
		if err == nil && !rec.Exists() {
			rec.To, err = s.markedTo(l, election)
		}
		return rec, err
	})
	if err != nil {
		return backends.Record{}, classifyRead(what, ctx, err)
	}
	return rec, nil
}

// readNode reads the node at path, after a sync if asked (synced).
func readNode(l *link, election, path string, sync bool) (backends.Record, error) {
	if sync {
		return synced(l, path, func() (backends.Record, error) { return readNode(l, election, path, false) })
	}
	data, st, err := l.conn.Get(path)
	if errors.Is(err, zk.ErrNoNode) {
		return record(election, nil, nil, l)
	}
	if err != nil {
		return backends.Record{}, err
	}
	return record(election, data, st, l)
}

// Wait reads the election's node and leaves a ZooKeeper watch on it in the
// same request; if the node differs from known (another Token or Value) it
// returns what it read, and otherwise it waits for the watch to fire: a
// deletion of the node read is returned at once as an absent node (see
// gone), so that a waiter's create follows the notification without a
// round trip in between; any other event is read again. An absent node
// carries the handover marker as To: a node read absent, as Get reads it;
// a deletion that a change of the epoch node came just before, which only
// a marked delete makes while the node exists (see mark), with
// the marker read then, one round trip later (markedGone). So while the
// node exists Wait watches the epoch node too. The first read
// follows a sync, so a change already made at the leader is seen at once;
// a later one is seen when its notification arrives, about a round trip
// after it commits.
//
// Wait reads and watches on the Store's reader (see Get). If that
// connection closes or its session expires before the watch fires, Wait
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
		w, err := s.watchRead(ctx, known.Election, path, sync)
		if err != nil {
			return backends.Record{}, classifyRead(what, ctx, err)
		}
		if w.rec.Differs(known) {
			return s.withMarker(ctx, what, since(known, w.rec))
		}
		epoch := s.watchEpoch(ctx, w)
		testHookWatching(known.Election)
		ev, err := awaitEvent(ctx, w.ev)
		switch {
		case err != nil:
			return backends.Record{}, classifyRead(what, ctx, err)
		case ev.Type == zk.EventNotWatching: // the connection went: read again
			sync = true
		case ev.Type == zk.EventNodeDeleted && w.rec.Exists() && fired(epoch):
			rec, err := readFor(s, ctx, func(l *link) (backends.Record, error) { return s.markedGone(l, known.Election, w.rec) })
			if err != nil {
				return backends.Record{}, classifyRead(what, ctx, err)
			}
			return rec, nil
		case ev.Type == zk.EventNodeDeleted && w.rec.Exists():
			return gone(known.Election, w.rec, w.l), nil
		default:
			sync = false
		}
	}
}

// withMarker returns rec, with the handover marker read as Get reads it
// if rec is absent.
func (s *store) withMarker(ctx context.Context, what string, rec backends.Record) (backends.Record, error) {
	if rec.Exists() {
		return rec, nil
	}
	to, err := readFor(s, ctx, func(l *link) (string, error) { return s.markedTo(l, rec.Election) })
	if err != nil {
		return backends.Record{}, classifyRead(what, ctx, err)
	}
	rec.To = to
	return rec, nil
}

// watchEpoch sets a data watch on the epoch node of w's election on w's
// link if w read the node present, and returns its channel; nil if not,
// or if that read fails: the link is then going, and the node's watch
// ends with it, so Wait reads again.
func (s *store) watchEpoch(ctx context.Context, w watched) <-chan zk.Event {
	if !w.rec.Exists() {
		return nil
	}
	ev, err := callFor(s, ctx, func() (<-chan zk.Event, error) { return getEntryW(w.l, s.epochPath(w.rec.Election)) })
	if err != nil {
		return nil
	}
	return ev
}

// fired reports whether the watch ev has fired; a nil ev has not.
func fired(ev <-chan zk.Event) bool {
	select {
	case e, ok := <-ev:
		return ok && e.Type == zk.EventNodeDataChanged
	default:
		return false
	}
}

// watchRead is watchNode on the reader.
func (s *store) watchRead(ctx context.Context, election, path string, sync bool) (watched, error) {
	return readFor(s, ctx, func(l *link) (watched, error) { return watchNode(l, election, path, sync) })
}

// watched is a node read with a watch left on it, on link l.
type watched struct {
	rec backends.Record
	ev  <-chan zk.Event
	l   *link
}

// watchNode reads the node at path and sets a watch that fires on its next
// change: a data watch if it exists (fires on a change or delete), an
// exists watch if not (fires on a create).
func watchNode(l *link, election, path string, sync bool) (watched, error) {
	if sync {
		return synced(l, path, func() (watched, error) { return watchNode(l, election, path, false) })
	}
	data, st, ev, err := l.conn.GetW(path)
	if !errors.Is(err, zk.ErrNoNode) {
		if err != nil {
			return watched{}, err
		}
		rec, err := record(election, data, st, l)
		return watched{rec, ev, l}, err
	}
	ok, _, ev, err := l.conn.ExistsW(path)
	if err != nil {
		return watched{}, err
	}
	rec, err := record(election, nil, nil, l)
	if ok { // created since GetW: ev already covers what follows this read
		rec, err = readNode(l, election, path, false)
	}
	return watched{rec, ev, l}, err
}

// awaitEvent waits for a watch to fire and returns its event, which is an
// EventNotWatching if the watch ended unfired.
func awaitEvent(ctx context.Context, ev <-chan zk.Event) (zk.Event, error) {
	select {
	case e := <-ev:
		return e, nil
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	}
}

// gone is the absent node that a deletion notification reports for a node
// read as was. A notification carries no zxid: the deletion's is above
// the node's mzxid, was.Revision, so the Revision is one more, or l's
// position if higher (see record).
func gone(election string, was backends.Record, l *link) backends.Record {
	return since(was, backends.Record{Election: election, Revision: l.position()})
}
