package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// endRounds bounds the rounds of one End whose multi found the pointer at
// another version than the one it guarded with.
const endRounds = 3

// passData is what a pass writes into its target's queue entry: a
// WatchSet's WaitGone on that entry, made by the waiter behind the
// target, tells the pass from another change of its data.
var passData = []byte("~pass")

// errNoTarget: the pass's target has no node in the election.
var errNoTarget = errors.New("the target has no node in the election")

// End ends the session's term at req.Token in one multi guarded by the
// pointer node's version: the pointer moves to the target's node (a pass)
// or is emptied, with its free child created (a release); the session's
// lead node is deleted; its roster record too if req.Leave (dropped from
// the multi if missing). The version is the one the Store last saw, from
// the session's Create or the read that showed it the key; if the
// pointer has moved since (a failed version check), End reads it again
// after a sync and goes on only if it still names this session's node at
// req.Token. So the multi acts only on the term it names: any other
// write of the pointer, the only way a term ends but with its session,
// changes its version.
//
// A pass (req.To) names the target's queue entry if Target.Entry is set,
// and its roster record otherwise, as the target's lead node, with
// Target.Value. Its multi checks the target's roster record and sets the
// data of its entry, if named: the write fires the data watch by which
// the target waits in line (see Watch), and fails if the entry is gone.
// The passed key's token is the pointer's mzxid after the multi.
//
// Errors: ErrNotFound if the pointer does not name this session's node at
// req.Token; ErrNoCandidate if the target's entry or roster record is
// missing, or the target is this session.
func (ss *session) End(ctx context.Context, req backends.End) (backends.Record, error) {
	// what is formatted only for an error: End is on a hand-off's path.
	what := func() string { return fmt.Sprintf("zookeeper: end %q at token %d", req.Election, req.Token) }
	if req.Election == "" {
		return backends.Record{}, named(what(), req.Election)
	}
	e := ending{election: req.Election, path: ss.s.leaderPath(req.Election), token: req.Token, acl: ss.s.opts.ACL,
		ownRecord: ss.recordPath(req.Election)}
	if req.Leave {
		e.record = e.ownRecord
	}
	if req.To != nil {
		if err := ss.target(&e, req.To); err != nil {
			return backends.Record{}, fmt.Errorf("%s: %w: %w", what(), backends.ErrNoCandidate, err)
		}
	}
	if ss.over() {
		return backends.Record{}, ss.gone(what())
	}
	rec, err := callFor(ss.s, ctx, func() (backends.Record, error) { return ss.end(e) })
	if err == nil && !ss.over() {
		return rec, nil
	}
	return rec, ss.endErr(what(), ctx, err)
}

// endErr is End's error for err, what End made of its call: nil if it
// made it and the session is not known to be over.
func (ss *session) endErr(what string, ctx context.Context, err error) error {
	switch {
	case errors.Is(err, errNotHeld) && !ss.over():
		return fmt.Errorf("%s: %w", what, backends.ErrNotFound)
	case errors.Is(err, errNoTarget):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrNoCandidate, err)
	}
	return ss.outcome(what, ctx, err)
}

// ending is an End's request in paths: the pointer, the session's record
// to delete ("": none), and for a pass, the target's pointer, its roster
// record and its entry ("": none).
type ending struct {
	election, path string
	token          uint64
	record         string
	ownRecord      string // the session's record, which may be its lead node
	pass           bool
	to             pointer
	toRecord       string
	toEntry        string
	acl            []zk.ACL // the free child's
}

// target fills e's pass to t.
func (ss *session) target(e *ending, t *backends.Target) error {
	if t.Session == ss.ID() {
		return errors.New("the target is the holder itself")
	}
	e.pass, e.toRecord = true, ss.s.rosterPath(e.election)+"/"+t.Session
	if err := validatePath(e.toRecord); err != nil {
		return err
	}
	lead := e.toRecord
	if t.Entry != 0 {
		var err error
		if e.toEntry, err = ss.s.entryPath(backends.Record{Election: e.election, Owner: t.Session, Token: t.Entry}); err != nil {
			return err
		}
		lead = e.toEntry
	}
	e.to = pointer{owner: t.Session, lead: lead, value: t.Value}
	return nil
}

// end is End's work on the session's connection.
func (ss *session) end(e ending) (backends.Record, error) {
	ps, err := ss.held(e.election, e.path, e.token, false)
	if err != nil {
		return backends.Record{}, err
	}
	for range endRounds {
		ops, ptr := e.ops(ps)
		st, err := multiStat(ss.l.conn, ptr, ops...)
		switch at := failedAt(err); {
		case err == nil:
			return ss.ended(e, ps, st), nil
		case at == e.path && errors.Is(err, zk.ErrBadVersion):
			if ps, err = ss.held(e.election, e.path, e.token, true); err != nil {
				return backends.Record{}, err
			}
		case at == e.record && errors.Is(err, zk.ErrNoNode):
			e.record = ""
		case at == e.toEntry && errors.Is(err, zk.ErrNoNode):
			// The entry's write comes before the pointer's check (see
			// ops): the term may have ended too.
			if _, err := ss.held(e.election, e.path, e.token, true); err != nil {
				return backends.Record{}, err
			}
			return backends.Record{}, errNoTarget
		case at == e.toRecord && errors.Is(err, zk.ErrNoNode):
			return backends.Record{}, errNoTarget
		case at == ps.p.lead && at != e.ownRecord && errors.Is(err, zk.ErrNoNode):
			return backends.Record{}, errNotHeld // its session ended
		default:
			return backends.Record{}, err
		}
	}
	return backends.Record{}, fmt.Errorf("the pointer kept moving")
}

// held returns election's pointer, at path, if it names the session's
// node at token: as the Store last saw it, unless read is set or that
// state does not, else as read after a sync (heldAt); errNotHeld if not.
func (ss *session) held(election, path string, token uint64, read bool) (pstate, error) {
	if ps, ok := ss.s.ptrs.get(election); ok && !read && ps.holds(ss.ID(), token) {
		return ps, nil
	}
	return ss.s.heldAt(ss.l, election, path, ss.ID(), token)
}

// ops returns the multi of e over the pointer ps, and the index of the
// pointer's write in it. A pass to a target in line writes the target's
// entry first, and deletes the holder's lead node next: the server sends
// a multi's notifications in the order of its ops, so the target, which
// waits on its entry's data and on the entry ahead of it (the lead node,
// when it is next in line), hears of the pass first, both notifications
// together, before the holder's own watch on the pointer.
func (e ending) ops(ps pstate) (ops []any, ptr int) {
	del := ps.p.lead != e.ownRecord // a record as lead node stays unless Leave
	if e.pass && e.toEntry != "" {
		ops = append(ops, &zk.SetDataRequest{Path: e.toEntry, Data: passData, Version: -1})
		if del {
			ops, del = append(ops, &zk.DeleteRequest{Path: ps.p.lead, Version: -1}), false
		}
	}
	ptr = len(ops)
	if e.pass {
		ops = append(ops, &zk.SetDataRequest{Path: e.path, Data: e.to.encode(), Version: ps.st.Version},
			&zk.CheckVersionRequest{Path: e.toRecord, Version: -1})
	} else {
		ops = append(ops, &zk.SetDataRequest{Path: e.path, Version: ps.st.Version},
			&zk.CreateRequest{Path: e.path + "/" + freeName, Acl: e.acl})
	}
	if del {
		ops = append(ops, &zk.DeleteRequest{Path: ps.p.lead, Version: -1})
	}
	if e.record != "" {
		ops = append(ops, &zk.DeleteRequest{Path: e.record, Version: -1})
	}
	return ops, ptr
}

// ended records the pointer as e's multi left it, at st, and returns the
// passed key, or the zero Record for a release.
func (ss *session) ended(e ending, was pstate, st *zk.Stat) backends.Record {
	ps := pstate{p: e.to, st: st}
	if e.pass {
		ss.s.ptrs.live(e.election, ps) // the multi checked the target's node
	} else {
		ps.p = pointer{}
		ss.l.saw(st)
		ss.s.ptrs.freed(e.election, ps)
	}
	if was.p.lead != "" {
		ss.s.own.dropPath(e.election, was.p.lead)
	}
	if !e.pass {
		return backends.Record{}
	}
	return ps.record(e.election, true, ss.l)
}
