package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/zookeeper/internal/names"
)

// errNotHeld: the leader node is absent or another incarnation.
var errNotHeld = errors.New("leader node is absent or holds another token")

// dataPath returns the node at which GuardedPut keeps key:
// Prefix + "/" + backends.DataSegment + "/" + the key's node name, escaped
// as an election's is (see leaderPath), so that keys never nest.
func (s *store) dataPath(key string) string {
	return s.opts.Prefix + "/" + backends.DataSegment + "/" + names.Node(key)
}

// GuardedPut syncs, reads the election's epoch node and leader node and,
// if the leader node's czxid is token, runs one multi-op: checks that the
// epoch node's version is still the one read (no leader node was created
// since) and the leader node's too (it was not deleted), and the write of
// key (a setData, or a create with missing parents made first). So the
// write commits only while the incarnation read holds (see epochPath);
// otherwise the error wraps ErrNotLeader. The multi goes on the leader
// node's own session when this Store holds it, as when the elector runs on
// this Store. Only a successor made by an older version of this package,
// whose create raised no epoch, can slip into the window between the read
// and the multi unseen.
func (s *store) GuardedPut(ctx context.Context, w backends.Guarded) error {
	election, token, key, value := w.Election, w.Token, w.Key, w.Value
	what := fmt.Sprintf("zookeeper: guarded put %q at token %d", election, token)
	if err := backends.ValidateElection(key); err != nil {
		return fmt.Errorf("%s: data key: %w", what, err)
	}
	if token == 0 {
		return fmt.Errorf("%s: %w", what, backends.ErrNotLeader)
	}
	path, err := s.checkedPath(election)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	epath := s.epochPath(election)
	h, err := readFor(s, ctx, func(l *link) (held, error) { return syncReadHeld(l, path, epath, token) })
	if err == nil {
		err = s.guardedWrite(ctx, h, path, epath, s.dataPath(key), value)
	}
	if errors.Is(err, errNotHeld) {
		return fmt.Errorf("%s: %w: %w", what, backends.ErrNotLeader, err)
	}
	if err != nil {
		return classifyRead(what, ctx, err)
	}
	return nil
}

// syncReadHeld syncs l's server with the leader and reads the leader node
// (readHeld).
func syncReadHeld(l *link, path, epath string, token uint64) (held, error) {
	return synced(l, path, func() (held, error) { return readHeld(l.conn, path, epath, token) })
}

// guardedWrite writes dpath in a multi guarded by h, on the owner's
// session link if the Store has it, and otherwise on the reader.
func (s *store) guardedWrite(ctx context.Context, h held, path, epath, dpath string, value []byte) error {
	read, done, err := s.reader(ctx)
	if err != nil {
		return err
	}
	defer done()
	return s.callErr(ctx, func() error {
		l, owned := s.sessionLink(h.leader.EphemeralOwner, read)
		write, err := s.dataOp(l.conn, dpath, value)
		if err != nil {
			return err
		}
		testHookHeld()
		guards := h.guards(path, epath)
		mr, err := l.conn.Multi(append(guards, write)...)
		switch {
		case guardFailed(mr, len(guards)):
			return errNotHeld
		case owned && errors.Is(err, zk.ErrSessionExpired):
			return fmt.Errorf("the owning session expired: %w", errNotHeld)
		}
		return multiErr(mr, err)
	})
}

// sessionLink returns the live session link of this Store that carries
// session id, and true; or fallback and whether it carries that session.
func (s *store) sessionLink(id int64, fallback *link) (*link, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for l := range s.links {
		if l.conn.SessionID() == id && !l.expired.Load() {
			return l, true
		}
	}
	return fallback, fallback.ttl > 0 && fallback.conn.SessionID() == id
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
