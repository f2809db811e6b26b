package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// Proclaim sets the value of the session's leader node at token. If the
// session knows the node's versions from its create, one multi checks
// them and sets it, as End does. Otherwise, or if that check
// fails, it reads the election's epoch node and leader node on the
// session's connection (readHeld) and, if the leader node is the
// session's and its czxid is token, sets its value in a multi guarded as
// End's is: it checks the epoch node's version and the leader node's as
// read, so the value goes to the incarnation read and to no successor.
// The node keeps its czxid, hence its Token, and its owner; its version
// rises. The error wraps ErrNotFound if the node is absent, holds another
// token or session, or changed before the multi to a node that is not
// the session's at token; a change by the holder itself in that window
// (a concurrent Proclaim) fails with a plain error. It wraps
// ErrSessionExpired if the session is over.
func (ss *session) Proclaim(ctx context.Context, election string, token uint64, value []byte) (backends.Record, error) {
	s := ss.s
	what := fmt.Sprintf("zookeeper: proclaim %q at token %d", election, token)
	path, err := ss.writable(what, election, value)
	if err != nil {
		return backends.Record{}, err
	}
	st, err := callFor(s, ctx, func() (*zk.Stat, error) { return ss.proclaim(election, path, token, value) })
	if errors.Is(err, errNotHeld) && ss.gone(what) == nil {
		ss.known.forget(election)
		return backends.Record{}, fmt.Errorf("%s: %w", what, backends.ErrNotFound)
	}
	if err := ss.outcome(what, ctx, err); err != nil {
		return backends.Record{}, err
	}
	ss.known.forget(election) // see known
	return record(election, value, st, ss.l)
}

// proclaim sets the value of the session's leader node at path if its
// czxid is token: at once if the session knows the node (known), else
// after reading it, guarded by the epoch node; errNotHeld if it is absent
// or another's.
func (ss *session) proclaim(election, path string, token uint64, value []byte) (*zk.Stat, error) {
	conn, epath := ss.l.conn, ss.s.epochPath(election)
	set := &zk.SetDataRequest{Path: path, Data: value, Version: -1}
	if guards, ok := ss.known.guards(election, path, epath, token); ok {
		res, err := conn.Multi(append(guards, set)...)
		if !guardFailed(res, len(guards)) {
			return setStat(res, len(guards), err)
		}
	}
	h, err := readHeld(conn, path, epath, token)
	if err != nil {
		return nil, err
	}
	if h.leader.EphemeralOwner != ss.id {
		return nil, errNotHeld
	}
	testHookHeld()
	guards := h.guards(path, epath)
	res, err := conn.Multi(append(guards, set)...)
	if guardFailed(res, len(guards)) {
		return nil, ss.stillHeld(path, token)
	}
	return setStat(res, len(guards), err)
}

// setStat returns the stat answered to the multi's op at, a setData, or
// the multi's error.
func setStat(res []zk.MultiResponse, at int, err error) (*zk.Stat, error) {
	if err := multiErr(res, err); err != nil {
		return nil, err
	}
	if len(res) <= at || res[at].Stat == nil {
		return nil, fmt.Errorf("the multi answered %d results without a stat", len(res))
	}
	return res[at].Stat, nil
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
