package zookeeper

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/zookeeper/internal/names"
)

// seqDigits is the width of the suffix ZooKeeper appends to a sequential
// node's name: the parent's child version, as %010d.
const seqDigits = 10

// queuePath returns the node under which election's queue entries live:
// Prefix + "/" + backends.QueueSegment + "/" + the election's node name
// (see leaderPath). It is a
// persistent node, made when the first entry is, and never deleted, so
// that its sequence counter never starts again. A session's entry is its
// child "~" + session ID + "-" + the 10-digit sequence number ZooKeeper
// appends, an EPHEMERAL_SEQUENTIAL node of that session; its token is the
// sequence number plus 1. Children not beginning with '~' (queue nodes
// that older versions nested here, "a/b" under "a") are no entries.
func (s *store) queuePath(election string) string {
	return s.opts.Prefix + "/" + backends.QueueSegment + "/" + names.Node(election)
}

// entryPath returns the node of entry: its name is derived from Owner and
// Token, as Enqueue made it.
func (s *store) entryPath(entry backends.Record) (string, error) {
	if entry.Election == "" {
		return "", errNoName
	}
	p := s.queuePath(entry.Election) + "/" + entryName(entry.Owner, entry.Token)
	if err := validatePath(p); err != nil {
		return "", fmt.Errorf("entry of %q owned by %q: %w", entry.Election, entry.Owner, err)
	}
	return p, nil
}

// entryPrefix is the name of a session's entry without its sequence
// suffix: the name Enqueue asks ZooKeeper to append the suffix to.
func entryPrefix(owner string) string { return "~" + owner + "-" }

// entryName is the full name of the entry of owner at token.
func entryName(owner string, token uint64) string {
	return fmt.Sprintf("%s%0*d", entryPrefix(owner), seqDigits, token-1)
}

// parseEntry parses a child of a queue node: ok is false if it is not an
// entry (a nested election's queue node, or a name no Enqueue made).
func parseEntry(name string) (owner string, token uint64, ok bool) {
	rest, found := strings.CutPrefix(name, "~")
	if !found {
		return "", 0, false
	}
	owner, seq, found := strings.Cut(rest, "-")
	if !found || owner == "" || len(seq) != seqDigits {
		return "", 0, false
	}
	n, err := strconv.ParseUint(seq, 10, 63) // digits only: no sign
	if err != nil {
		return "", 0, false
	}
	return owner, n + 1, true
}

// Enqueue returns the session's entry in the election's queue if it has
// one, as after a retry whose reply was lost, and otherwise creates the
// entry as an EPHEMERAL_SEQUENTIAL node of the session, making the
// missing parents as persistent nodes first. It finds the entry by
// listing the children of the election's queue node: after an Enqueue
// of the session in the election failed, or while this Store knows an
// entry of the session there, it lists before the create; otherwise it
// lists at the same time, and deletes the entry it made if the listing
// shows an older one (see enqueue). Both requests go on the session's
// own connection, so the listing sees every entry the session made
// before. Token is the entry's sequence number plus 1; Revision is the
// connection's position (link.position) after both. The error wraps
// ErrSessionExpired if the session is over; then no entry is made.
//
// Two concurrent Enqueue calls of one session on one election may both
// create an entry (the listing and the create are not one transaction):
// callers should not overlap them.
func (ss *session) Enqueue(ctx context.Context, election string) (backends.Record, error) {
	s := ss.s
	what := fmt.Sprintf("zookeeper: enqueue %q", election)
	if err := cmp.Or(named(what, election), ss.gone(what)); err != nil {
		return backends.Record{}, err
	}
	qpath := s.queuePath(election)
	_, unsure := ss.unsure.Load(election)
	_, known := s.own.of(election, ss.ID())
	listFirst := unsure || known
	token, err := callFor(s, ctx, func() (uint64, error) { return ss.enqueue(qpath, listFirst) })
	if err := ss.outcome(what, ctx, err); err != nil {
		ss.unsure.Store(election, struct{}{})
		return backends.Record{}, err
	}
	ss.unsure.Delete(election)
	entry := backends.Record{Election: election, Owner: ss.ID(), Token: token, Revision: ss.l.position()}
	s.own.add(entry)
	return entry, nil
}

// enqueue returns the token of the session's entry under qpath, creating
// the entry if there is none. With listFirst it lists the children, then
// creates the entry if none is the session's. Otherwise it lists and
// creates at once, a round trip less for a waiter: the listing, served
// before or after the create, shows every entry the session made before,
// and if one is there (a retried Enqueue whose reply was lost, or the
// entry by which the session holds the key, which Dequeue leaves), it
// deletes the new entry and returns the oldest. If that delete fails,
// the error is returned and the new entry stays until the session ends,
// as after two overlapping calls.
func (ss *session) enqueue(qpath string, listFirst bool) (uint64, error) {
	if listFirst {
		token, err := ss.ownEntry(qpath)
		if token != 0 || err != nil {
			return token, err
		}
		return ss.createEntry(qpath)
	}
	var token, older uint64
	var err, lerr error
	atOnce(2, func(i int) {
		if i == 0 {
			token, err = ss.createEntry(qpath)
		} else {
			older, lerr = ss.ownEntry(qpath)
		}
	})
	switch {
	case err != nil:
		return 0, err
	case lerr != nil:
		return 0, lerr
	case older == 0 || older >= token:
		return token, nil
	}
	made := qpath + "/" + entryName(ss.ID(), token)
	if err := ss.l.conn.Delete(made, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return 0, err
	}
	return older, nil
}

// ownEntry lists the children of qpath and returns the least token of
// the session's entries there: 0 if none, or no queue node.
func (ss *session) ownEntry(qpath string) (uint64, error) {
	children, st, err := ss.l.conn.Children(qpath)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return 0, err
	}
	ss.l.saw(st)
	var token uint64
	for _, c := range children {
		if owner, t, ok := parseEntry(c); ok && owner == ss.ID() && (token == 0 || t < token) {
			token = t
		}
	}
	return token, nil
}

// createEntry creates the session's entry under qpath, making the missing
// parents first, and returns its token.
func (ss *session) createEntry(qpath string) (uint64, error) {
	conn, acl := ss.l.conn, ss.s.opts.ACL
	path := qpath + "/" + entryPrefix(ss.ID())
	made, err := conn.Create(path, nil, zk.FlagEphemeral|zk.FlagSequence, acl)
	if errors.Is(err, zk.ErrNoNode) {
		if err = makeParents(conn, path, acl); err == nil {
			made, err = conn.Create(path, nil, zk.FlagEphemeral|zk.FlagSequence, acl)
		}
	}
	if err != nil {
		return 0, err
	}
	owner, token, ok := parseEntry(made[strings.LastIndexByte(made, '/')+1:])
	if !ok || owner != ss.ID() {
		return 0, fmt.Errorf("the server named the entry %q: want %s followed by %d digits", made, path, seqDigits)
	}
	return token, nil
}

// Ahead syncs the server it reads from with the leader and lists the
// children of the election's queue node, on the Store's reader (see Get),
// and returns the entry with the greatest token below token, its Owner
// parsed from its name. It makes no sync when the reader is the
// connection of the session whose entry (Enqueue) has token (madeOn):
// every entry below token was made before that entry, so that
// connection's server has each of them, or its deletion. If there is none, or no queue node, it returns a
// Record with Token 0. Revision is the queue node's pzxid, the position
// of its last entry's create or delete, from which the listing's entries
// held until it was read; with no queue node, as for an absent leader
// node (see Get).
func (s *store) Ahead(ctx context.Context, election string, token uint64) (backends.Record, error) {
	what := fmt.Sprintf("zookeeper: queue ahead of %q at token %d", election, token)
	if err := named(what, election); err != nil {
		return backends.Record{}, err
	}
	if token <= 1 {
		return backends.Record{Election: election}, nil
	}
	qpath := s.queuePath(election)
	rec, err := readFor(s, ctx, func(l *link) (backends.Record, error) {
		if s.own.madeOn(l, election, token) {
			return ahead(l, election, qpath, token)
		}
		return synced(l, qpath, func() (backends.Record, error) { return ahead(l, election, qpath, token) })
	})
	if err != nil {
		return backends.Record{}, classifyRead(what, ctx, err)
	}
	return rec, nil
}

// ahead lists the queue node at qpath on l and returns the entry of
// election with the greatest token below token: none without a node.
// The Revision is the node's pzxid, or without a node the link's
// (position).
func ahead(l *link, election, qpath string, token uint64) (backends.Record, error) {
	rec := backends.Record{Election: election}
	children, st, err := l.conn.Children(qpath)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		rec.Revision = l.position()
		return rec, nil
	case err != nil:
		return backends.Record{}, err
	}
	l.saw(st)
	rec.Revision = uint64(st.Pzxid)
	for _, c := range children {
		if owner, t, ok := parseEntry(c); ok && t < token && t > rec.Token {
			rec.Owner, rec.Token = owner, t
		}
	}
	return rec, nil
}

// Dequeue deletes the entry's node (named from its Owner and Token), on
// the Store's reader (see Get), unless the election's pointer names it:
// a candidate that was passed the key, or took it, holds it by its entry
// (see Create), which its End deletes. It reads the pointer after a sync
// and deletes the entry in a multi that checks the pointer's version as
// read, so a pass to the entry after the read fails the delete, which is
// made again. A missing node is not an error.
func (s *store) Dequeue(ctx context.Context, entry backends.Record) error {
	what := fmt.Sprintf("zookeeper: dequeue %q at token %d", entry.Election, entry.Token)
	if entry.Token == 0 {
		return nil // no entry
	}
	path, err := s.entryPath(entry)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	ppath := s.leaderPath(entry.Election)
	_, err = readFor(s, ctx, func(l *link) (struct{}, error) { return struct{}{}, s.dequeue(l, ppath, path) })
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return classifyRead(what, ctx, err)
	}
	s.own.dropPath(entry.Election, path)
	return nil
}

// dequeue deletes the entry at path on l unless the pointer at ppath
// names it.
func (s *store) dequeue(l *link, ppath, path string) error {
	for range endRounds {
		ps, err := s.syncedPointer(l, "", ppath)
		switch {
		case err != nil:
			return err
		case ps.led() && ps.p.lead == path:
			return nil // it holds the key
		case ps.st == nil:
			return l.conn.Delete(path, -1)
		}
		_, err = multi(l.conn, &zk.CheckVersionRequest{Path: ppath, Version: ps.st.Version},
			&zk.DeleteRequest{Path: path, Version: -1})
		if failedAt(err) != ppath || !errors.Is(err, zk.ErrBadVersion) {
			return err
		}
	}
	return fmt.Errorf("the pointer kept moving")
}

// ownEntries holds the queue entries this Store's sessions made, by
// election: a session's Create points the pointer at its entry (see
// leadPointer), and a WatchSet's WaitGone watches the entry behind the one
// it waits on (see Watch). It is safe for concurrent use.
type ownEntries struct {
	mu sync.Mutex
	m  map[string][]backends.Record
}

// add records entry, in place of its session's earlier entry in the
// election.
func (o *ownEntries) add(entry backends.Record) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string][]backends.Record{}
	}
	el := entry.Election
	o.m[el] = append(slices.DeleteFunc(o.m[el], ownedBy(entry.Owner)), entry)
}

// ownedBy reports the entries of owner.
func ownedBy(owner string) func(backends.Record) bool {
	return func(r backends.Record) bool { return r.Owner == owner }
}

// of returns owner's entry in election.
func (o *ownEntries) of(election, owner string) (backends.Record, bool) {
	return o.find(election, func(r, _ backends.Record) bool { return r.Owner == owner })
}

// behind returns the entry of election with the least token above token:
// the one a WaitGone on the entry at token waits for, if it is this
// Store's.
func (o *ownEntries) behind(election string, token uint64) (backends.Record, bool) {
	return o.find(election, func(r, best backends.Record) bool {
		return r.Token > token && (best.Token == 0 || r.Token < best.Token)
	})
}

// find returns the last entry of election that better prefers to the
// one found before it (none at first).
func (o *ownEntries) find(election string, better func(r, best backends.Record) bool) (backends.Record, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var best backends.Record
	for _, r := range o.m[election] {
		if better(r, best) {
			best = r
		}
	}
	return best, best.Token != 0
}

// madeOn reports whether election's entry at token is one of these,
// made by the session of link l: its create was answered on l.
func (o *ownEntries) madeOn(l *link, election string, token uint64) bool {
	owner := sessionID(l.conn.SessionID())
	_, ok := o.find(election, func(r, _ backends.Record) bool { return r.Token == token && r.Owner == owner })
	return ok
}

// drop drops the entries of election ("": of every election) that gone
// reports.
func (o *ownEntries) drop(election string, gone func(backends.Record) bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	els := []string{election}
	if election == "" {
		els = slices.Collect(maps.Keys(o.m))
	}
	for _, el := range els {
		if o.m[el] = slices.DeleteFunc(o.m[el], gone); len(o.m[el]) == 0 {
			delete(o.m, el)
		}
	}
}

// dropPath drops the entry of election whose node is at path, if any.
func (o *ownEntries) dropPath(election, path string) {
	if owner, token, ok := parseEntry(path[strings.LastIndexByte(path, '/')+1:]); ok {
		o.drop(election, func(r backends.Record) bool { return r.Owner == owner && r.Token == token })
	}
}
