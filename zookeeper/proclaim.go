package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// Proclaim sets the value in the election's pointer node, if it names the
// session's node at token, in one setData at the pointer's version: the
// one the Store last saw (from the session's Create or the read that
// showed it the key), or, if the pointer has moved since, the one read
// after a sync, if it still names the session's node at token. The new
// pointer carries the token over (see pointer), so the Token stays; the
// Revision is the write's. The error wraps ErrNotFound if the pointer
// names another node or token, and ErrSessionExpired if the session is
// over.
func (ss *session) Proclaim(ctx context.Context, election string, token uint64, value []byte) (backends.Record, error) {
	s := ss.s
	what := fmt.Sprintf("zookeeper: proclaim %q at token %d", election, token)
	path, err := ss.writable(what, election, value)
	if err != nil {
		return backends.Record{}, err
	}
	rec, err := callFor(s, ctx, func() (backends.Record, error) { return ss.proclaim(election, path, token, value) })
	if errors.Is(err, errNotHeld) && ss.gone(what) == nil {
		return backends.Record{}, fmt.Errorf("%s: %w", what, backends.ErrNotFound)
	}
	if err := ss.outcome(what, ctx, err); err != nil {
		return backends.Record{}, err
	}
	return rec, nil
}

// proclaim is Proclaim's work on the session's connection.
func (ss *session) proclaim(election, path string, token uint64, value []byte) (backends.Record, error) {
	for round := range endRounds {
		ps, err := ss.held(election, path, token, round > 0)
		if err != nil {
			return backends.Record{}, err
		}
		p := ps.p
		p.token, p.value = token, value
		st, err := ss.l.conn.Set(path, p.encode(), ps.st.Version)
		switch {
		case err == nil:
			now := pstate{p: p, st: st}
			ss.s.ptrs.saw(election, now)
			return now.record(election, true, ss.l), nil
		case !errors.Is(err, zk.ErrBadVersion):
			return backends.Record{}, err
		}
	}
	return backends.Record{}, fmt.Errorf("the pointer kept moving")
}
