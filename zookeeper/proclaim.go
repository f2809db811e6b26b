package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// Proclaim reads the election's epoch node and leader node on the
// session's connection (readHeld) and, if the leader node is the
// session's and its czxid is token, sets its value in a multi guarded as
// Delete's is: it checks the epoch node's version and the leader node's as
// read, so the value goes to the incarnation read and to no successor.
// The node keeps its czxid, hence its Token, and its owner; its version
// rises. The error wraps ErrNotFound if the node is absent, holds another
// token or session, or changed before the multi to a node that is not
// the session's at token; a change by the holder itself in that window
// (a concurrent Proclaim) fails with a plain error. It wraps
// ErrSessionExpired if the session is over.
func (s *store) Proclaim(ctx context.Context, bs backends.Session, election string, token uint64, value []byte) (backends.Record, error) {
	what := fmt.Sprintf("zookeeper: proclaim %q at token %d", election, token)
	ss, err := backends.OwnSession(bs, func(ss *session) bool { return ss.s == s })
	if err != nil {
		return backends.Record{}, fmt.Errorf("%s: %w", what, err)
	}
	path, err := ss.writable(what, election, value)
	if err != nil {
		return backends.Record{}, err
	}
	st, err := callFor(s, ctx, func() (*zk.Stat, error) { return ss.proclaim(path, s.epochPath(election), token, value) })
	if errors.Is(err, errNotHeld) && ss.gone(what) == nil {
		return backends.Record{}, fmt.Errorf("%s: %w", what, backends.ErrNotFound)
	}
	if err := ss.outcome(what, ctx, err); err != nil {
		return backends.Record{}, err
	}
	return record(election, value, st, ss.l)
}

// proclaim sets the value of the session's leader node at path if its
// czxid is token, guarded by the epoch node at epath; errNotHeld if it is
// absent or another's.
func (ss *session) proclaim(path, epath string, token uint64, value []byte) (*zk.Stat, error) {
	conn := ss.l.conn
	h, err := readHeld(conn, path, epath, token)
	if err != nil {
		return nil, err
	}
	if h.leader.EphemeralOwner != ss.id {
		return nil, errNotHeld
	}
	testHookHeld()
	guards := h.guards(path, epath)
	res, err := conn.Multi(append(guards, &zk.SetDataRequest{Path: path, Data: value, Version: -1})...)
	if guardFailed(res, len(guards)) {
		return nil, ss.stillHeld(path, token)
	}
	if err := multiErr(res, err); err != nil {
		return nil, err
	}
	if len(res) <= len(guards) || res[len(guards)].Stat == nil {
		return nil, fmt.Errorf("the multi answered %d results without a stat", len(res))
	}
	return res[len(guards)].Stat, nil
}

// stillHeld tells, after a guard failed, whether the leader node at path
// is still the session's at token (it changed in place: an error saying
// so) or not (errNotHeld).
func (ss *session) stillHeld(path string, token uint64) error {
	ok, st, err := ss.l.conn.Exists(path)
	switch {
	case err != nil:
		return err
	case !ok || uint64(st.Czxid) != token || st.EphemeralOwner != ss.id:
		return errNotHeld
	}
	return fmt.Errorf("leader node %q changed while held, as by a concurrent Proclaim: look again", path)
}
