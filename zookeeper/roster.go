package zookeeper

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/zookeeper/internal/names"
)

// rosterPath returns the node under which election's roster lives:
// Prefix + "/" + backends.RosterSegment + "/" + the election's node name
// (see leaderPath). It is a persistent node, made with the first record
// and never deleted. A session's record is its child named by the
// session's ID (sessionID), an EPHEMERAL node of that session whose czxid
// is the record's Token. Every change to a roster changes its node's
// children, and so its pzxid: a record joins or leaves, or, when a Join
// rewrites a record, the multi that does it also creates and deletes a
// child of its own (touchName). So one children watch sees every change,
// and the pzxid tells whether the roster changed since a position.
func (s *store) rosterPath(election string) string {
	return s.opts.Prefix + "/" + backends.RosterSegment + "/" + names.Node(election)
}

// touchName is the child of a roster node that the multi rewriting
// session id's record creates and deletes, to mark the change in the
// roster node's pzxid and fire its children watches. No List ever sees
// it: the multi commits both or neither.
func touchName(id string) string { return "~" + id }

// recordPath returns the path of session ss's record in election's roster.
func (ss *session) recordPath(election string) string {
	return ss.s.rosterPath(election) + "/" + ss.ID()
}

// Join creates the session's record in the election's roster, an
// EPHEMERAL node of the session, on its connection, making the missing
// parents as persistent nodes first; the create is a multi that also sets
// the value again at version 0, whose answer carries the node's stat. If
// the record exists, Join checks that the session owns it and sets its
// value at the version read, in a multi that creates and deletes a child
// of the roster node (see rosterPath). Token is the record's czxid and
// Revision the write's zxid. The error wraps ErrSessionExpired if the
// session is over.
func (ss *session) Join(ctx context.Context, election string, value []byte) (backends.Record, error) {
	s := ss.s
	what := fmt.Sprintf("zookeeper: join the roster of %q", election)
	if err := cmp.Or(named(what, election), ss.gone(what), fitting(what, value)); err != nil {
		return backends.Record{}, err
	}
	path := ss.recordPath(election)
	st, err := callFor(s, ctx, func() (*zk.Stat, error) { return ss.join(path, value) })
	if err := ss.outcome(what, ctx, err); err != nil {
		return backends.Record{}, err
	}
	return backends.Record{Election: election, Owner: ss.ID(), Value: value,
		Token: uint64(st.Czxid), Revision: uint64(st.Mzxid)}, nil
}

// join creates the record at path, or rewrites it if it exists.
func (ss *session) join(path string, value []byte) (*zk.Stat, error) {
	conn, acl := ss.l.conn, ss.s.opts.ACL
	st, err := createRecord(conn, path, value, acl)
	if errors.Is(err, zk.ErrNoNode) {
		if err = makeParents(conn, path, acl); err == nil {
			st, err = createRecord(conn, path, value, acl)
		}
	}
	if errors.Is(err, zk.ErrNodeExists) {
		return ss.rewrite(path, value)
	}
	return st, err
}

// createRecord creates an ephemeral record at path and returns its stat
// from the same multi (see createStat).
func createRecord(conn *zk.Conn, path string, value []byte, acl []zk.ACL) (*zk.Stat, error) {
	return multiStat(conn, 1, &zk.CreateRequest{Path: path, Data: value, Acl: acl, Flags: zk.FlagEphemeral},
		&zk.SetDataRequest{Path: path, Data: value, Version: 0})
}

// rewrite sets the value of the session's record at path, at the version
// read, with the touch child's create and delete (see rosterPath).
func (ss *session) rewrite(path string, value []byte) (*zk.Stat, error) {
	ok, st, err := ss.l.conn.Exists(path)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("record %q deleted during the Join (a Leave of the same session?)", path)
	case st.EphemeralOwner != ss.id:
		return nil, fmt.Errorf("node %q is not this session's record: its ephemeral owner is %s", path, sessionID(st.EphemeralOwner))
	}
	touch := path[:len(path)-len(ss.ID())] + touchName(ss.ID())
	return multiStat(ss.l.conn, 2, &zk.CreateRequest{Path: touch, Acl: ss.s.opts.ACL, Flags: zk.FlagEphemeral},
		&zk.DeleteRequest{Path: touch, Version: -1}, &zk.SetDataRequest{Path: path, Data: value, Version: st.Version})
}

// Leave reads the session's record in the election's roster and deletes
// it at the version read, if the session owns it, on the session's
// connection. A missing record is not an error, nor is a session known to
// be over: its records went, or go, with it.
func (ss *session) Leave(ctx context.Context, election string) error {
	s := ss.s
	what := fmt.Sprintf("zookeeper: leave the roster of %q", election)
	if err := cmp.Or(named(what, election), ss.gone(what)); err != nil {
		if errors.Is(err, backends.ErrSessionExpired) {
			return nil
		}
		return err
	}
	path, ppath := ss.recordPath(election), s.leaderPath(election)
	err := s.callErr(ctx, func() error { return ss.leave(election, ppath, path) })
	return ss.outcome(what, ctx, err)
}

// leave deletes the session's record at path, if it is there. A record
// that the pointer at ppath names as its lead node (a pass to the
// session while it waited on the key) holds the session's term: the
// multi that deletes it moves the pointer to the session's lead entry,
// created with it, carrying the token over, so the term goes on.
func (ss *session) leave(election, ppath, path string) error {
	ok, st, err := ss.l.conn.Exists(path)
	switch {
	case err != nil || !ok:
		return err
	case st.EphemeralOwner != ss.id:
		return fmt.Errorf("node %q is not this session's record: its ephemeral owner is %s", path, sessionID(st.EphemeralOwner))
	}
	for range endRounds {
		ps, err := ss.s.syncedPointer(ss.l, "", ppath)
		if err != nil {
			return err
		}
		ops := []any{&zk.DeleteRequest{Path: path, Version: st.Version}}
		if ps.led() && ps.p.lead == path {
			ops = ss.unleadOps(election, ppath, ps, ops)
		}
		_, err = multi(ss.l.conn, ops...)
		switch at := failedAt(err); {
		case err == nil || (at == path && errors.Is(err, zk.ErrNoNode)):
			return nil
		case at != ppath || !errors.Is(err, zk.ErrBadVersion):
			return err
		}
	}
	return fmt.Errorf("the pointer kept moving")
}

// unleadOps adds to ops, which delete the session's record that the
// pointer ps names, the ops that move the pointer to the session's lead
// entry, with the token and value it holds.
func (ss *session) unleadOps(election, ppath string, ps pstate, ops []any) []any {
	p := ps.p
	p.lead, p.token = ss.leadEntry(election), ps.token()
	_ = makeParents(ss.l.conn, p.lead, ss.s.opts.ACL)
	return append(ops, &zk.SetDataRequest{Path: ppath, Data: p.encode(), Version: ps.st.Version},
		&zk.CreateRequest{Path: p.lead, Acl: ss.s.opts.ACL, Flags: zk.FlagEphemeral})
}

// List syncs the server it reads from with the leader, lists the children
// of the election's roster node and reads each, on the Store's reader
// (see Get). The records are in czxid order. The revision is a position
// at which the roster was as listed: the roster node's pzxid, or the
// connection's position if higher (see listRoster).
func (s *store) List(ctx context.Context, election string) ([]backends.Record, uint64, error) {
	what := fmt.Sprintf("zookeeper: list the roster of %q", election)
	if err := named(what, election); err != nil {
		return nil, 0, err
	}
	rpath := s.rosterPath(election)
	if err := s.layout.Check(ctx); err != nil {
		return nil, 0, err
	}
	r, err := readFor(s, ctx, func(l *link) (rosterList, error) {
		return synced(l, rpath, func() (rosterList, error) { return listRoster(l, election, rpath) })
	})
	if err != nil {
		return nil, 0, classifyRead(what, ctx, err)
	}
	return r.recs, r.rev, nil
}

// rosterList is a roster as List returns it.
type rosterList struct {
	recs []backends.Record
	rev  uint64 // the position of the listing (see listRoster)
}

// rosterChanged reports whether a roster node whose stat is st, with n
// children, differs from the roster at revision: its children changed
// since (see rosterPath), unless it has none and was created since, so
// that it had none then either.
func rosterChanged(st *zk.Stat, n int, revision uint64) bool {
	return uint64(st.Pzxid) > revision && !(n == 0 && uint64(st.Czxid) > revision)
}

// listRoster lists the roster node at rpath and reads its records, on l
// after a sync (see List). The revision is the node's pzxid, the position
// of its children's last change, from which the listing held until it
// was read; or, if higher, the link's position when the listing is sent
// (link.position), which is at or below the listing's. A record deleted
// after the listing is left out.
func listRoster(l *link, election, rpath string) (rosterList, error) {
	r := rosterList{rev: l.position()}
	children, st, err := l.conn.Children(rpath)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return r, nil
	case err != nil:
		return rosterList{}, err
	}
	r.rev = max(r.rev, uint64(st.Pzxid))
	recs, err := readRecords(l.conn, election, rpath, children)
	if err != nil {
		return rosterList{}, err
	}
	for i, rec := range recs {
		if rec.Token != 0 && rec.Owner == children[i] {
			r.recs = append(r.recs, rec)
		}
	}
	slices.SortFunc(r.recs, func(a, b backends.Record) int { return cmp.Compare(a.Token, b.Token) })
	return r, nil
}

// readRecord reads the record at path: Token 0 if it is absent or no
// ephemeral node.
func readRecord(conn *zk.Conn, election, path string) (backends.Record, error) {
	data, st, err := conn.Get(path)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return backends.Record{}, nil
	case err != nil:
		return backends.Record{}, err
	case st.EphemeralOwner == 0:
		return backends.Record{}, nil
	}
	return backends.Record{Election: election, Owner: sessionID(st.EphemeralOwner), Value: data,
		Token: uint64(st.Czxid), Revision: uint64(st.Mzxid)}, nil
}
