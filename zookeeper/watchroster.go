package zookeeper

import (
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// A roster request (backends.WatchRoster) is read and watched as the
// set's other requests are, on the Store's reader after a sync: its read
// lists the roster node's children with a children watch (an exists
// watch if the node is absent), and its pzxid tells whether the roster
// changed since the request's revision (see rosterPath and readRosterW). So
// a roster that stays as it is costs one watch on the server, and no
// goroutine.

var _ backends.WatchSet = (*watchSet)(nil)

// waitRoster asks to be told when election's roster changes after
// revision (a WatchRoster request, see Wait); the roster node's pzxid
// tells, and known is not needed.
func (w *watchSet) waitRoster(tag uint64, election string, _ uint64, revision uint64) {
	rpath, err := checkedName("election", election, w.s.rosterPath)
	w.ask(&watchReq{tag: tag, known: backends.Record{Election: election, Revision: revision}, path: rpath, roster: true}, err)
}

// stopRoster withdraws election's roster request, if any.
func (w *watchSet) stopRoster(election string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.forget(w.rosters, election)
}

// readRosterW lists roster request r's node on l with a children watch,
// or, if it is absent, sets an exists watch on it. The Record has a
// Revision, the node's pzxid, if the roster changed after r's revision
// (rosterRead.changedSince), and none if not. A node created between
// the two reads counts as changed: its first record came with it.
func readRosterW(l *link, r *watchReq) (backends.Record, error) {
	rec := backends.Record{Election: r.known.Election}
	children, st, _, err := l.conn.ChildrenW(r.path)
	if errors.Is(err, zk.ErrNoNode) {
		ok, st, _, err := l.conn.ExistsW(r.path)
		if ok {
			rec.Revision = max(uint64(st.Pzxid), 1)
		}
		return rec, err
	}
	if err != nil {
		return rec, err
	}
	rr := rosterRead{pzxid: uint64(st.Pzxid), born: uint64(st.Czxid), empty: len(children) == 0}
	if rr.changedSince(r.known.Revision) {
		rec.Revision = rr.pzxid
	}
	return rec, nil
}
