package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/zookeeper/internal/names"
)

// dataPath returns the node at which GuardedPut keeps key:
// Prefix + "/" + backends.DataSegment + "/" + the key's node name, escaped
// as an election's is (see leaderPath), so that keys never nest.
func (s *store) dataPath(key string) string {
	return s.opts.Prefix + "/" + backends.DataSegment + "/" + names.Node(key)
}

// GuardedPut syncs, reads the election's pointer node and, if it names a
// node at token, runs one multi-op: checks that the pointer is still at
// the version read (no term began or ended since) and that its lead node
// exists (its session has not ended), and writes key (a setData, or a
// create with missing parents made first). So the write commits only
// while the term at token holds; otherwise the error wraps ErrNotLeader.
// The multi goes on the holder's own session when this Store holds it, as
// when the elector runs on this Store.
func (s *store) GuardedPut(ctx context.Context, w backends.Guarded) error {
	election, token, key, value := w.Election, w.Token, w.Key, w.Value
	what := fmt.Sprintf("zookeeper: guarded put %q at token %d", election, token)
	if err := backends.ValidateElection(key); err != nil {
		return fmt.Errorf("%s: data key: %w", what, err)
	}
	if token == 0 {
		return fmt.Errorf("%s: %w", what, backends.ErrNotLeader)
	}
	if err := named(what, election); err != nil {
		return err
	}
	path := s.leaderPath(election)
	ps, err := readFor(s, ctx, func(l *link) (pstate, error) { return s.readAt(l, election, path, token) })
	if err == nil {
		err = s.guardedWrite(ctx, ps, path, s.dataPath(key), value)
	}
	if errors.Is(err, errNotHeld) {
		return fmt.Errorf("%s: %w: %w", what, backends.ErrNotLeader, err)
	}
	if err != nil {
		return classifyRead(what, ctx, err)
	}
	return nil
}

// readAt reads the pointer after a sync on l and returns it if it names a
// live node at token; errNotHeld if not.
func (s *store) readAt(l *link, election, path string, token uint64) (pstate, error) {
	ps, err := s.heldAt(l, election, path, "", token)
	if err != nil {
		return pstate{}, err
	}
	switch ok, _, err := l.conn.Exists(ps.p.lead); {
	case err != nil:
		return pstate{}, err
	case !ok:
		return pstate{}, errNotHeld // its session ended
	}
	return ps, nil
}

// guardedWrite writes dpath in a multi guarded by ps, on the owner's
// session link if the Store has it, and otherwise on the reader.
func (s *store) guardedWrite(ctx context.Context, ps pstate, path, dpath string, value []byte) error {
	read, done, err := s.reader(ctx)
	if err != nil {
		return err
	}
	defer done()
	return s.callErr(ctx, func() error {
		l, owned := s.sessionLink(ps.p.owner, read)
		write, err := s.dataOp(l.conn, dpath, value)
		if err != nil {
			return err
		}
		_, err = multi(l.conn, &zk.CheckVersionRequest{Path: path, Version: ps.st.Version},
			&zk.CheckVersionRequest{Path: ps.p.lead, Version: -1}, write)
		switch at := failedAt(err); {
		case at == path || at == ps.p.lead:
			return errNotHeld
		case owned && errors.Is(err, zk.ErrSessionExpired):
			return fmt.Errorf("the owning session expired: %w", errNotHeld)
		}
		return err
	})
}

// sessionLink returns the live session link of this Store that carries
// session id, and true; or fallback and whether it carries that session.
func (s *store) sessionLink(id string, fallback *link) (*link, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for l := range s.links {
		if sessionID(l.conn.SessionID()) == id && !l.expired.Load() {
			return l, true
		}
	}
	return fallback, fallback.ttl > 0 && sessionID(fallback.conn.SessionID()) == id
}

// dataOp returns the multi operation that writes value at dpath: a setData
// if the node exists, else a create (its missing parents made now). If
// another writer creates or deletes the node in between, the multi fails
// with a plain error.
func (s *store) dataOp(conn *zk.Conn, dpath string, value []byte) (any, error) {
	ok, _, err := conn.Exists(dpath)
	if err != nil {
		return nil, err
	}
	if ok {
		return &zk.SetDataRequest{Path: dpath, Data: value, Version: -1}, nil
	}
	if err := makeParents(conn, dpath, s.opts.ACL); err != nil {
		return nil, err
	}
	return &zk.CreateRequest{Path: dpath, Data: value, Acl: s.opts.ACL}, nil
}
