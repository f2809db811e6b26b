package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/keys"
)

// A handover marker (backends.Capabilities.Markers) is the data of the
// election's epoch node, keys.Marker's "<session> <entry>": the multi that
// deletes the leader node sets it, and the next create's multi clears it
// (bumpEpoch sets no data). Nothing else writes the epoch node, so a
// marker means the leader node is absent.
//
// ZooKeeper cannot tell whether a session with no node lives, so the
// target's session is its node in the election: its queue entry, or with
// entry 0 its roster record. The multi checks that node, and Get checks
// it again when it reads a marker.

// errNoTarget: the marked delete's target has no node in the election.
var errNoTarget = errors.New("the handover target has no node in the election")

// markRounds bounds the rounds of one mark whose nudge found the
// entry ahead of the target gone.
const markRounds = 3

// mark is End with a target: it deletes the session's leader node if its
// czxid is req.Token, in one multi that also sets the marker naming the
// target's session and entry into the epoch node, checks that the
// target's node (targetPath) exists, deletes the session's record at
// rpath unless it is "" (dropped from the multi if missing), and, for a
// target in line, nudges the entry just ahead of it (see Nudge), which
// the target watches: so a target waiting in line wakes, and one at the
// head of the line, which watches the leader node, learns of the marker
// from the epoch node's watch (see Watch). The multi is guarded as
// release's. The entry ahead is req.To.Ahead if it is given (a multi that
// finds it gone fails, and the next round lists); if not, a listing of
// the queue finds it, on the session's connection first. The error wraps
// ErrNotFound if the node is absent, another's or replaced, and
// ErrNoCandidate if the target has no such node; either way nothing
// changed.
func (ss *session) mark(ctx context.Context, req backends.End, rpath string) error {
	s, election, token, to := ss.s, req.Election, req.Token, req.To
	what := fmt.Sprintf("zookeeper: delete %q at token %d marked for %s", election, token, to.Session)
	path, err := s.checkedPath(election)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	m := mark{to: to.Session, entry: to.Entry, leave: rpath}
	if m.target, err = s.targetPath(election, to.Session, to.Entry); err != nil {
		return fmt.Errorf("%s: %w: %w", what, backends.ErrNoCandidate, err)
	}
	m.ahead = s.aheadHint(election, to)
	if err := ss.gone(what); err != nil {
		return err
	}
	err = s.callErr(ctx, func() error { return ss.deleteMarked(election, path, token, m) })
	switch {
	case errors.Is(err, errNotHeld) && ss.gone(what) == nil:
		ss.known.forget(election)
		return fmt.Errorf("%s: %w", what, backends.ErrNotFound)
	case errors.Is(err, errNoTarget):
		return fmt.Errorf("%s: %w: %w", what, backends.ErrNoCandidate, err)
	case err == nil:
		ss.known.forget(election)
	}
	return ss.outcome(what, ctx, err)
}

// mark is a marked delete's target: its session, its entry's token (0:
// none) and the path of its node in the election (targetPath); the path
// of the entry ahead of it as the caller saw the queue ("": list it); and
// the leader's record to delete with it ("": none).
type mark struct {
	to     string
	entry  uint64
	target string
	ahead  string
	leave  string
}

// aheadHint returns the path of the entry ahead of to's that to.Ahead
// names, or "" if it names none, or one not ahead of to's.
func (s *store) aheadHint(election string, to *backends.Target) string {
	a := to.Ahead
	if to.Entry == 0 || a.Token == 0 || a.Token >= to.Entry {
		return ""
	}
	p, err := s.entryPath(backends.Record{Election: election, Owner: a.Owner, Token: a.Token})
	if err != nil {
		return ""
	}
	return p
}

// targetPath returns the node that stands for session to in election: its
// queue entry at token entry, or with entry 0 its roster record.
func (s *store) targetPath(election, to string, entry uint64) (string, error) {
	if entry != 0 {
		return s.entryPath(backends.Record{Election: election, Owner: to, Token: entry})
	}
	r, err := checkedName("election", election, s.rosterPath)
	if err != nil {
		return "", err
	}
	p := r + "/" + to
	return p, validatePath(p)
}

// deleteMarked is mark's work on the session's connection:
// errNotHeld if the node is absent or not the session's at token,
// errNoTarget if m's node is missing.
func (ss *session) deleteMarked(election, path string, token uint64, m mark) error {
	conn, epath := ss.l.conn, ss.s.epochPath(election)
	guards, known := ss.known.guards(election, path, epath, token)
	for range markRounds {
		ops, err := ss.markOps(election, path, epath, m)
		if err != nil {
			return err
		}
		if !known {
			h, err := readHeld(conn, path, epath, token)
			if err != nil {
				return err
			}
			if h.leader.EphemeralOwner != ss.id {
				return errNotHeld
			}
			guards = h.guards(path, epath)
		}
		testHookHeld()
		all := append(guards, ops...)
		res, err := conn.Multi(all...)
		if err == nil {
			return nil
		}
		i := failedOp(res)
		gone := i >= 0 && errors.Is(res[i].Error, zk.ErrNoNode)
		switch {
		case i < 0:
			return err
		case guardFailed(res, len(guards)) && known:
			known = false // changed since the create: read it
		case guardFailed(res, len(guards)):
			return errNotHeld
		case gone && opPath(all[i]) == m.target:
			return errNoTarget
		case gone && opPath(all[i]) == m.leave: // no record: none to delete
			m.leave = ""
		case gone && opPath(all[i]) == epath: // no epoch node yet
			if err := makeEpoch(conn, epath, ss.s.opts.ACL); err != nil {
				return err
			}
			known = false
		case gone: // the nudged entry ahead went: list
			m.ahead = ""
		default:
			return res[i].Error
		}
	}
	return fmt.Errorf("the queue ahead of entry %d kept changing", m.entry)
}

// markOps returns the ops of a marked delete after its guards: the check
// of m's node, the nudge of the entry ahead of m's if there is one, the
// marker's setData on the epoch node, the leader node's delete and, with
// m.leave, the record's.
func (ss *session) markOps(election, path, epath string, m mark) ([]any, error) {
	ops := []any{&zk.CheckVersionRequest{Path: m.target, Version: -1}}
	if m.entry != 0 {
		ahead := m.ahead
		if ahead == "" {
			var err error
			if ahead, err = ss.entryAhead(election, m); err != nil {
				return nil, err
			}
		}
		if ahead != "" {
			ops = append(ops, &zk.SetDataRequest{Path: ahead, Version: -1})
		}
	}
	ops = append(ops, &zk.SetDataRequest{Path: epath, Data: []byte(keys.Marker(m.to, m.entry)), Version: -1},
		&zk.DeleteRequest{Path: path, Version: -1})
	if m.leave != "" {
		ops = append(ops, &zk.DeleteRequest{Path: m.leave, Version: -1})
	}
	return ops, nil
}

// entryAhead lists election's queue on the session's connection and
// returns the path of the entry just ahead of m's, or "" if m's is the
// head; errNoTarget if m's is not listed, after a sync and a second
// listing (the first may come from a server behind the target's
// Enqueue). A listing that holds m's entry holds every entry made before
// it that is still there: those are the ones ahead.
func (ss *session) entryAhead(election string, m mark) (string, error) {
	conn, qpath := ss.l.conn, ss.s.queuePath(election)
	for round := range 2 {
		if round > 0 {
			if _, err := conn.Sync(qpath); err != nil {
				return "", err
			}
		}
		children, _, err := conn.Children(qpath)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return "", err
		}
		ahead, listed := "", false
		var best uint64
		for _, c := range children {
			owner, t, ok := parseEntry(c)
			switch {
			case !ok:
			case t == m.entry && owner == m.to:
				listed = true
			case t < m.entry && t > best:
				ahead, best = qpath+"/"+c, t
			}
		}
		if listed {
			return ahead, nil
		}
	}
	return "", errNoTarget
}

// failedOp returns the index of a failed multi's op that failed, or -1
// if none did (the multi's error is its own): the ops before it report
// no error, and those after it a runtime inconsistency.
func failedOp(res []zk.MultiResponse) int {
	for i, r := range res {
		if r.Error != nil {
			return i
		}
	}
	return -1
}

// opPath returns the path a multi op acts on.
func opPath(op any) string {
	switch op := op.(type) {
	case *zk.CheckVersionRequest:
		return op.Path
	case *zk.SetDataRequest:
		return op.Path
	case *zk.DeleteRequest:
		return op.Path
	}
	return ""
}

// readMarker reads election's marker from its epoch node at epath on l:
// whom it names and that one's entry, or to "" for none.
func readMarker(l *link, epath string) (to string, entry uint64, err error) {
	to, entry, _, err = readMarkerAt(l, epath)
	return to, entry, err
}

// readMarkerAt is readMarker, with the zxid that last wrote the epoch
// node, which tells one marker from another naming the same target.
func readMarkerAt(l *link, epath string) (to string, entry uint64, mzxid int64, err error) {
	data, st, err := l.conn.Get(epath)
	if errors.Is(err, zk.ErrNoNode) {
		return "", 0, 0, nil
	}
	if err != nil {
		return "", 0, 0, err
	}
	l.saw(st)
	to, entry, _ = keys.ParseMarker(data)
	return to, entry, st.Mzxid, nil
}

// markedTo returns whom the marker of election names, on l, if its
// target's node still exists: "" if there is no marker, or its target is
// gone.
func (s *store) markedTo(l *link, election string) (string, error) {
	to, entry, err := readMarker(l, s.epochPath(election))
	if err != nil || to == "" {
		return "", err
	}
	target, err := s.targetPath(election, to, entry)
	if err != nil {
		return "", nil // a marker no mark wrote
	}
	ok, _, err := l.conn.Exists(target)
	if err != nil || !ok {
		return "", err
	}
	return to, nil
}

// markedGone is the absent node that a deletion of the node read as was
// reports (gone), with the marker read from election's epoch node on l:
// for a waiter that learnt of the deletion right after the epoch node
// changed, the marked delete's multi. The target's node is not checked:
// the multi did so a round trip ago.
func (s *store) markedGone(l *link, election string, was backends.Record) (backends.Record, error) {
	to, _, err := readMarker(l, s.epochPath(election))
	rec := gone(election, was, l) // after the marker's read: at or after its write, the deletion
	rec.To = to
	return rec, err
}
