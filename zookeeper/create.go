package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// errVanished: the node was deleted between a create and its read-back.
var errVanished = errors.New("node deleted between create and read")

// createRounds bounds the create-then-read rounds of one Create.
const createRounds = 3

// Create creates the election's node as an EPHEMERAL node of this session,
// creating missing parents as persistent nodes, and learns its stat in the
// same request (createStat); the create fails if the node exists, which
// makes it a compare-and-swap, and then Create reads the node. If
// the node exists and this session owns it (ephemeralOwner is this
// session's ID), as when a create whose reply was lost is retried, Create
// returns it with a nil error. If another session owns it, the error wraps
// ErrKeyExists and the Record is the holder's. The token is the node's
// czxid.
//
// If the node is deleted between a create that found it and the read, as
// when its holder resigns just then, Create creates again, up to three
// rounds in all. That is no retry of an uncertain request: a create that
// found the node and a read that found none both surely changed nothing.
func (ss *session) Create(ctx context.Context, election string, value []byte) (backends.Record, error) {
	what := fmt.Sprintf("zookeeper: create %q", election)
	path, err := ss.writable(what, election, value)
	if err != nil {
		return backends.Record{}, err
	}
	rec, err := callFor(ss.s, ctx, func() (backends.Record, error) { return ss.create(election, path, value) })
	if err := ss.outcome(what, ctx, err); err != nil {
		return backends.Record{}, err
	}
	if rec.Owner != ss.ID() {
		return rec, fmt.Errorf("%s: %w (held by session %s)", what, backends.ErrKeyExists, rec.Owner)
	}
	return rec, nil
}

// create makes the node, unless it exists, and reads it; again if the node
// vanished in between.
func (ss *session) create(election, path string, value []byte) (rec backends.Record, err error) {
	for range createRounds {
		if rec, err = ss.createOnce(election, path, value); !errors.Is(err, errVanished) {
			break
		}
	}
	return rec, err
}

// createOnce makes the node and returns it, or, if it exists, reads it.
func (ss *session) createOnce(election, path string, value []byte) (backends.Record, error) {
	conn, acl, epath := ss.l.conn, ss.s.opts.ACL, ss.s.epochPath(election)
	st, est, err := createStat(conn, path, epath, value, acl)
	if errors.Is(err, zk.ErrNoNode) { // the prefix or the epoch node is missing
		if err = makeParents(conn, path, acl); err == nil {
			if err = makeEpoch(conn, epath, acl); err == nil {
				st, est, err = createStat(conn, path, epath, value, acl)
			}
		}
	}
	if err == nil {
		ss.known.remember(election, st, est)
		return record(election, value, st, ss.l)
	}
	if !errors.Is(err, zk.ErrNodeExists) {
		return backends.Record{}, err
	}
	data, st, err := conn.Get(path)
	if errors.Is(err, zk.ErrNoNode) {
		return backends.Record{}, errVanished
	}
	if err != nil {
		return backends.Record{}, err
	}
	if st.EphemeralOwner == 0 {
		if st, err = replaceLeftover(conn, path, epath, value, acl, st); err != nil {
			return backends.Record{}, err
		}
		data = value
	}
	return record(election, data, st, ss.l)
}

// replaceLeftover replaces a persistent node found at a leader node's
// path, a parent that a version of this package which nested election
// names ("x" for "x/y") left behind, by this session's leader node: one
// multi deletes it at the version read and creates the node. A leftover
// with children is still a parent in that layout: the error says to
// remove it.
func replaceLeftover(conn *zk.Conn, path, epath string, value []byte, acl []zk.ACL, st *zk.Stat) (*zk.Stat, error) {
	if st.NumChildren > 0 {
		return nil, fmt.Errorf("%q is a persistent node with %d children, not a leader node: a parent "+
			"left by a leasehold version that nested election names; remove it once no such version runs", path, st.NumChildren)
	}
	got, _, err := createStat(conn, path, epath, value, acl, &zk.DeleteRequest{Path: path, Version: st.Version})
	switch {
	case errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNotEmpty):
		// changed since read, or no epoch node yet: look again
		if err := makeEpoch(conn, epath, acl); err != nil {
			return nil, err
		}
		return nil, errVanished
	case err != nil:
		return nil, fmt.Errorf("replace the persistent node left at %q: %w", path, err)
	}
	return got, nil
}

// createStat creates an ephemeral node and returns its Stat, and the
// epoch node's, from the same request, so a won create costs one round
// trip: a multi of the ops in pre, the create, a setData of the same
// value at version 0, whose answer carries the stat (go-zookeeper has no
// create2), and the raise of the epoch node's version at epath
// (bumpEpoch). The node's version is therefore 1. The error is that of
// the first op that failed.
func createStat(conn *zk.Conn, path, epath string, value []byte, acl []zk.ACL, pre ...any) (st, est *zk.Stat, err error) {
	ops := append(pre, &zk.CreateRequest{Path: path, Data: value, Acl: acl, Flags: zk.FlagEphemeral},
		&zk.SetDataRequest{Path: path, Data: value, Version: 0}, bumpEpoch(epath))
	res, err := conn.Multi(ops...)
	if err := multiErr(res, err); err != nil {
		return nil, nil, err
	}
	at := len(pre) + 1
	if len(res) != len(ops) || res[at].Stat == nil || res[at+1].Stat == nil {
		return nil, nil, fmt.Errorf("the multi answered %d results without a stat", len(res))
	}
	return res[at].Stat, res[at+1].Stat, nil
}

// makeParents creates the missing ancestors of path as persistent nodes.
func makeParents(conn *zk.Conn, path string, acl []zk.ACL) error {
	for _, p := range ancestors(path) {
		_, err := conn.Create(p, nil, 0, acl)
		switch {
		case errors.Is(err, zk.ErrNoChildrenForEphemerals):
			return fmt.Errorf("parent %q is an ephemeral node: a leader node of a leasehold version that nested election names? %w", p, err)
		case err != nil && !errors.Is(err, zk.ErrNodeExists):
			return fmt.Errorf("create parent %q: %w", p, err)
		}
	}
	return nil
}

// End deletes the election's leader node if its czxid is req.Token, with
// the session's record in the same multi if req.Leave, and, for a
// handover (req.To), the marker beside it (see mark).
//
// If the session made that node and has not proclaimed on it since (see
// known), one multi checks the versions its create left and deletes: one
// round trip.
// Otherwise, or if that check fails, End reads the election's epoch
// node and leader node and, if the leader node's czxid is token, deletes
// it in a multi that checks the epoch node's version too: ZooKeeper has
// no delete conditioned on czxid, and the check fails if any leader node
// was created since the read, so the node deleted is the node read (see
// epochPath). It returns an error wrapping ErrNotFound if the node is
// absent, holds another token, or was replaced before the multi. If the
// record to delete with it is missing, the multi fails on it and the
// delete goes again without it.
func (ss *session) End(ctx context.Context, req backends.End) (backends.Record, error) {
	rpath := ""
	if req.Leave {
		p, err := ss.recordPath(req.Election)
		if err != nil {
			return backends.Record{}, fmt.Errorf("zookeeper: end %q: %w", req.Election, err)
		}
		rpath = p
	}
	if req.To != nil {
		return backends.Record{}, ss.mark(ctx, req, rpath)
	}
	return backends.Record{}, ss.release(ctx, req.Election, req.Token, rpath)
}

// release is End without a target, which deletes the record at rpath
// too unless rpath is "".
func (ss *session) release(ctx context.Context, election string, token uint64, rpath string) error {
	what := fmt.Sprintf("zookeeper: delete %q at token %d", election, token)
	path, err := ss.s.checkedPath(election)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := ss.gone(what); err != nil {
		return err
	}
	err = ss.s.callErr(ctx, func() error {
		err := ss.deleteNode(election, path, token, rpath)
		if errors.Is(err, errNoRecord) {
			err = ss.deleteNode(election, path, token, "")
		}
		return err
	})
	if errors.Is(err, errNotHeld) {
		ss.known.forget(election)
		return fmt.Errorf("%s: %w", what, backends.ErrNotFound)
	}
	if err == nil {
		ss.known.forget(election)
	}
	return ss.outcome(what, ctx, err)
}

// errNoRecord says a release's multi failed only because the session's
// record it deletes too is missing.
var errNoRecord = errors.New("no candidate record")

// deleteNode deletes election's node at path if its czxid is token, and
// the record at rpath unless it is "": at once if the session knows the
// node (known), else after reading it (readHeld), guarded by the epoch
// node; errNotHeld if the node is absent or another.
func (ss *session) deleteNode(election, path string, token uint64, rpath string) error {
	conn, epath := ss.l.conn, ss.s.epochPath(election)
	if guards, ok := ss.known.guards(election, path, epath, token); ok {
		testHookHeld()
		res, err := conn.Multi(deleteOps(guards, path, rpath)...)
		if !guardFailed(res, len(guards)) {
			return releaseErr(res, err, rpath)
		}
	}
	h, err := readHeld(conn, path, epath, token)
	if err != nil {
		return err
	}
	testHookHeld()
	guards := h.guards(path, epath)
	res, err := conn.Multi(deleteOps(guards, path, rpath)...)
	if guardFailed(res, len(guards)) {
		return errNotHeld
	}
	return releaseErr(res, err, rpath)
}

// deleteOps returns guards, then the deletes of the leader node at path
// and of the record at rpath unless it is "".
func deleteOps(guards []any, path, rpath string) []any {
	ops := append(guards, &zk.DeleteRequest{Path: path, Version: -1})
	if rpath != "" {
		ops = append(ops, &zk.DeleteRequest{Path: rpath, Version: -1})
	}
	return ops
}

// releaseErr is the error of a release's multi: errNoRecord if it failed
// on the record at rpath, which is missing.
func releaseErr(res []zk.MultiResponse, err error, rpath string) error {
	if i := failedOp(res); rpath != "" && i == len(res)-1 && errors.Is(res[i].Error, zk.ErrNoNode) {
		return errNoRecord
	}
	return multiErr(res, err)
}

// writable returns the path of election's leader node for a write of
// value by ss: it checks the name, the value's size and that the session
// is not over, and fails with an error that starts with what.
func (ss *session) writable(what, election string, value []byte) (string, error) {
	path, err := ss.s.checkedPath(election)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if len(value) > MaxValueSize {
		return "", fmt.Errorf("%s: value of %d bytes exceeds MaxValueSize %d", what, len(value), MaxValueSize)
	}
	if err := ss.gone(what); err != nil {
		return "", err
	}
	return path, nil
}
