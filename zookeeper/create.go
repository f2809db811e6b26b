package zookeeper

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// createRounds bounds the rounds of one Create whose multi found the
// pointer moved since it was read.
const createRounds = 3

// errMoved: the pointer moved between a Create's read and its multi.
var errMoved = errors.New("the pointer moved during the create")

// Create points the election's pointer node at a node of this session,
// its lead node, and puts the value in the pointer, in one multi: the
// session's queue entry in the election if it has one (Enqueue), checked
// by the multi, else its lead entry ("~" + session ID + "-L" in the
// election's queue node), an EPHEMERAL node the multi creates. On a free
// election (the pointer empty, its free child there) the multi deletes
// the free child and sets the pointer at any version: one round trip, no
// read. Where the Store last saw the pointer naming a lead node, the
// multi takes it at that version if that node is gone (see firstOps): a
// waiter that saw the holder's session end takes the key in one round
// trip too. Where it last saw the pointer name another session's lead
// node alive, with no deletion of that node seen since (a candidate that
// joins while a leader holds the key), it sends no multi first: that one
// would fail, and a failed multi is a write of the ensemble, several
// times a read's cost. Nor where the pointer it last saw is the empty one
// of its own release: a waiter on the key took it as soon as that
// committed, so the multi would mostly fail. Otherwise, or if that
// multi fails, it reads the pointer on the session's connection after a
// sync (none after its own release, if that connection made it, or after
// a failed multi; see firstRead and createRead): a pointer that names
// this session's live node is returned as is (a retried Create whose
// reply was lost); one that names another
// session's live node fails with ErrKeyExists and the holder's Record;
// one that names a node gone (its session ended), or none, is taken by a
// multi that sets it at the version read. The first Create of an election
// creates the pointer node. The token is the pointer's mzxid after the
// multi.
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

// create is Create's work on the session's connection: the multi for a
// free election, unless a read comes first (firstRead), then, if the
// election is not free, rounds of a read and a multi at the version
// read.
func (ss *session) create(election, path string, value []byte) (backends.Record, error) {
	p, own, err := ss.leadPointer(election, value)
	if err != nil {
		return backends.Record{}, err
	}
	read, sync := ss.s.ptrs.firstRead(election, ss.ID(), ss.l)
	if !read {
		ops, at := ss.firstOps(election, path, p, own)
		rec, err := ss.take(election, ops, p, at)
		if err == nil || !(errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrNodeExists) || errors.Is(err, zk.ErrBadVersion)) {
			return rec, err
		}
		ss.entryGone(election, p.lead, own, err)
	}
	for range createRounds {
		rec, err := ss.createRead(election, path, value, sync)
		if !errors.Is(err, errMoved) {
			return rec, err
		}
		sync = false
	}
	return backends.Record{}, fmt.Errorf("%w %d times", errMoved, createRounds)
}

// firstOps returns the ops of a Create's first multi, which reads nothing
// first, and the index of the pointer's setData among them. If the Store
// last saw the pointer naming a lead node (a waiter on the key read it),
// the multi takes it at that version if that node is gone (its session
// ended): it creates and deletes the node, which fails if it exists
// (nothing else could make it again: its name is its session's, and its
// session is over). Otherwise it is the free election's: it deletes the
// free child, which exists only while the pointer is empty.
func (ss *session) firstOps(election, path string, p pointer, own bool) ([]any, int) {
	if ps, ok := ss.s.ptrs.get(election); ok && ps.led() {
		ops := []any{&zk.SetDataRequest{Path: path, Data: p.encode(), Version: ps.st.Version},
			&zk.CreateRequest{Path: ps.p.lead, Acl: ss.s.opts.ACL, Flags: zk.FlagEphemeral},
			&zk.DeleteRequest{Path: ps.p.lead, Version: -1}}
		return append(ops, ss.leadOps(p.lead, own)...), 0
	}
	return append([]any{&zk.DeleteRequest{Path: path + "/" + freeName, Version: -1},
		&zk.SetDataRequest{Path: path, Data: p.encode(), Version: -1}}, ss.leadOps(p.lead, own)...), 1
}

// leadPointer returns the pointer that names the session's lead node in
// election with value, and whether that node is its queue entry: the
// entry it made in election, if any (own), else its lead entry.
func (ss *session) leadPointer(election string, value []byte) (pointer, bool, error) {
	p := pointer{owner: ss.ID(), lead: ss.leadEntry(election), value: value}
	e, own := ss.s.own.of(election, ss.ID())
	if !own {
		return p, false, nil
	}
	var err error
	p.lead, err = ss.s.entryPath(e)
	return p, true, err
}

// leadEntry returns the path of the session's lead entry in election.
func (ss *session) leadEntry(election string) string {
	return ss.s.queuePath(election) + "/" + entryPrefix(ss.ID()) + "L"
}

// entryGone forgets the session's queue entry in election if err says a
// multi found it gone (its check failed): the next round uses the lead
// entry.
func (ss *session) entryGone(election, lead string, own bool, err error) bool {
	if own && failedAt(err) == lead && errors.Is(err, zk.ErrNoNode) {
		ss.s.own.drop(election, ownedBy(ss.ID()))
		return true
	}
	return false
}

// createRead reads the pointer and takes it if it names no live node;
// errMoved if the round should be made again. Unless sync is set, it
// follows a multi of the session's that the server refused, so it reads
// with no sync (see readKeyAfter): the server that refused it had every
// change committed before it, and the session's next request sees them.
func (ss *session) createRead(election, path string, value []byte, sync bool) (backends.Record, error) {
	p, own, err := ss.leadPointer(election, value)
	if err != nil {
		return backends.Record{}, err
	}
	rec, ps, err := ss.s.readKeyAfter(ss.l, election, path, sync)
	switch {
	case err != nil:
		return backends.Record{}, err
	case rec.Exists():
		return rec, nil // ours (a retry) or the holder's
	case ps.st == nil:
		return ss.createPointer(election, path, p, own)
	}
	ops := []any{&zk.SetDataRequest{Path: path, Data: p.encode(), Version: ps.st.Version}}
	if ps.st.NumChildren > 0 { // the free child: it goes with the pointer's emptiness
		ops = append(ops, &zk.DeleteRequest{Path: path + "/" + freeName, Version: -1})
	}
	ops = append(ops, ss.leadOps(p.lead, own)...)
	rec, err = ss.take(election, ops, p, 0)
	switch {
	case errors.Is(err, zk.ErrBadVersion), ss.entryGone(election, p.lead, own, err):
		return rec, errMoved
	case errors.Is(err, zk.ErrNodeExists) && !own: // a lead entry left behind: see leadOps
		if err := ss.l.conn.Delete(p.lead, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return backends.Record{}, err
		}
		return rec, errMoved
	}
	return rec, err
}

// createPointer makes the election's pointer node, naming p, with the
// lead node's op, missing parents first; errMoved if another Create made
// the pointer first.
func (ss *session) createPointer(election, path string, p pointer, own bool) (backends.Record, error) {
	acl := ss.s.opts.ACL
	if err := makeParents(ss.l.conn, path, acl); err != nil {
		return backends.Record{}, err
	}
	if !own {
		if err := makeParents(ss.l.conn, p.lead, acl); err != nil {
			return backends.Record{}, err
		}
	}
	ops := append([]any{&zk.CreateRequest{Path: path, Data: p.encode(), Acl: acl},
		&zk.SetDataRequest{Path: path, Data: p.encode(), Version: 0}}, ss.leadOps(p.lead, own)...)
	rec, err := ss.take(election, ops, p, 1)
	if errors.Is(err, zk.ErrNodeExists) && failedAt(err) == path || ss.entryGone(election, p.lead, own, err) {
		return rec, errMoved
	}
	return rec, err
}

// take sends ops, which point the pointer at p, with the pointer's
// setData at index at (whose stat gives the token), and returns the key
// as it then is. The error is the multi's (see multi).
func (ss *session) take(election string, ops []any, p pointer, at int) (backends.Record, error) {
	testHookTake.call(struct{}{})
	st, err := multiStat(ss.l.conn, at, ops...)
	if err != nil {
		return backends.Record{}, err
	}
	ps := pstate{p: p, st: st}
	ss.s.ptrs.saw(election, ps)
	return ps.record(election, true, ss.l), nil
}

// leadOps returns the op that makes or checks the lead node at lead: a
// check of the session's queue entry (own), or the create of its lead
// entry. A lead entry left by a create whose pointer write failed cannot
// be: the multi commits both or neither; one left by an End that lost
// the pointer first (the session's own is deleted with the pointer's
// move) is deleted by createRead.
func (ss *session) leadOps(lead string, own bool) []any {
	if own {
		return []any{&zk.CheckVersionRequest{Path: lead, Version: -1}}
	}
	return []any{&zk.CreateRequest{Path: lead, Acl: ss.s.opts.ACL, Flags: zk.FlagEphemeral}}
}

// makeParents creates the missing ancestors of path as persistent nodes.
func makeParents(conn *zk.Conn, path string, acl []zk.ACL) error {
	for _, p := range ancestors(path) {
		_, err := conn.Create(p, nil, 0, acl)
		switch {
		case errors.Is(err, zk.ErrNoChildrenForEphemerals):
			return fmt.Errorf("parent %q is an ephemeral node: a leader node of an older leasehold version? %w", p, err)
		case err != nil && !errors.Is(err, zk.ErrNodeExists):
			return fmt.Errorf("create parent %q: %w", p, err)
		}
	}
	return nil
}

// writable returns the path of election's pointer node for a write of
// value by ss: it checks the name, the value's size and that the session
// is not over, and fails with an error that starts with what.
func (ss *session) writable(what, election string, value []byte) (string, error) {
	if err := cmp.Or(named(what, election), fitting(what, value), ss.gone(what)); err != nil {
		return "", err
	}
	return ss.s.leaderPath(election), nil
}

// fitting fails, with an error that starts with what, if value exceeds
// MaxValueSize.
func fitting(what string, value []byte) error {
	if len(value) > MaxValueSize {
		return fmt.Errorf("%s: value of %d bytes exceeds MaxValueSize %d", what, len(value), MaxValueSize)
	}
	return nil
}

// testHookTake runs before each multi of a Create; tests set it.
var testHookTake testHook[struct{}]
