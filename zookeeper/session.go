package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// NewSession opens a connection of its own and waits for the server to
// establish a ZooKeeper session on it with the TTL as session timeout. The
// server clamps the timeout to its minSessionTimeout..maxSessionTimeout:
// TTL() reports what it granted, and NewSession fails (and ends the
// session) if that is less than ttl, as the holder's deadline would then
// outlast the session. Before it returns, it checks that the credentials
// (Options.Auth) may create and delete nodes under Prefix, creating
// Prefix if it is missing: one round trip more; and the Store's first
// session claims the layout marker (backends.Layout). An error wraps
// ErrUnavailable if go-zookeeper could reach none of the servers,
// ErrPermission if the server refused the credentials (AUTH_FAILED) or
// they lack those rights (NOAUTH), or ErrCanceled if ctx ended first.
func (s *store) NewSession(ctx context.Context, ttl time.Duration) (backends.Session, error) {
	const what = "zookeeper: new session"
	l, err := dialLink(s.servers, ttl, ttl, s.opts, s.route)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !s.addLink(l) {
		l.close()
		return nil, fmt.Errorf("%s: %w", what, errStoreClosed)
	}
	ss := &session{s: s, l: l}
	if err := ss.open(ctx, ttl); err != nil {
		s.spawn(func() { s.closeLink(l) }) // ends the session if one was made
		return nil, classify(what, ctx, err)
	}
	if !s.serve(l) { // the Store's reads go on this connection from now on
		return nil, fmt.Errorf("%s: %w", what, errStoreClosed)
	}
	if err := s.layout.Claim(ctx); err != nil {
		s.spawn(func() { s.closeLink(l) })
		return nil, err
	}
	return ss, nil
}

// session is a backends.Session: one ZooKeeper session on a link of its
// own.
type session struct {
	s       *store
	l       *link
	id      int64
	ttl     time.Duration
	closing atomic.Bool
	// unsure holds the elections, as keys, where an Enqueue of the
	// session failed since its last that succeeded: its create may have
	// made an entry no one was told of (see enqueue).
	unsure sync.Map
}

// open waits for the session, adds the credentials and checks that they
// may create and delete nodes under Prefix (checkRights). It waits for a
// first request (an exists of "/"), which go-zookeeper sends once it has
// the session, and gives up once go-zookeeper has tried every server in
// vain.
func (ss *session) open(ctx context.Context, ttl time.Duration) error {
	probe := make(chan error, 1)
	if !ss.s.spawn(func() { _, _, err := ss.l.conn.Exists("/"); probe <- err }) {
		return errStoreClosed
	}
	select {
	case err := <-probe:
		if errors.Is(err, zk.ErrNoServer) {
			return ss.l.noSession()
		}
		if err != nil {
			return err
		}
	case <-ss.l.tried:
		return ss.l.noSession()
	case <-ctx.Done():
		return ctx.Err()
	}
	ss.id, ss.ttl = ss.l.conn.SessionID(), ss.l.negotiated()
	if ss.ttl < ttl {
		return fmt.Errorf("the server granted a session timeout of %v, below the TTL %v asked: "+
			"raise its maxSessionTimeout (default 20×tickTime) or lower Options.MaxTTL", ss.ttl, ttl)
	}
	o := ss.s.opts
	for _, a := range o.Auth {
		if err := ss.s.callErr(ctx, func() error { return ss.l.conn.AddAuth(a.Scheme, a.Credentials) }); err != nil {
			return fmt.Errorf("add %s credentials: %w", identity([]Auth{a}), err)
		}
	}
	return ss.s.callErr(ctx, func() error { return checkRights(ss.l.conn, o.Prefix, o.ACL, o.Auth) })
}

// ID returns the ZooKeeper session ID in lower-case hex, which is what
// Record.Owner holds for the nodes it owns (their ephemeralOwner).
func (ss *session) ID() string { return sessionID(ss.id) }

// TTL returns the session timeout the server negotiated.
func (ss *session) TTL() time.Duration { return ss.ttl }

// gone returns an error wrapping ErrSessionExpired if the session is known
// to be over: closed, reported expired by the server, or replaced.
func (ss *session) gone(what string) error {
	switch {
	case !ss.over():
		return nil
	case ss.closing.Load():
		return fmt.Errorf("%s: %w: session %s was closed", what, backends.ErrSessionExpired, ss.ID())
	}
	return fmt.Errorf("%s: %w: session %s expired", what, backends.ErrSessionExpired, ss.ID())
}

// over reports whether the session is known to be over: closed, or
// expired (gone says which).
func (ss *session) over() bool {
	return ss.closing.Load() || ss.l.expired.Load() || ss.l.conn.SessionID() != ss.id
}

// outcome classifies the result of a call on the session's link. A
// session known to be over wins over any other outcome.
func (ss *session) outcome(what string, ctx context.Context, err error) error {
	if errors.Is(err, zk.ErrSessionExpired) {
		ss.l.expired.Store(true)
	}
	if gone := ss.gone(what); gone != nil {
		if err != nil {
			return fmt.Errorf("%w (%v)", gone, err)
		}
		return gone
	}
	if err == nil {
		return nil
	}
	return classify(what, ctx, err)
}

// KeepAlive makes one request on the session's connection, a sync of "/":
// any request renews a ZooKeeper session, and a sync is answered only
// once the ensemble's leader has processed it, so a reply means the
// server was in touch with the leader after the request was sent. A read
// or a ping is not enough: a follower cut off from its leader answers
// them alone until syncLimit ticks pass, while the leader, which hears of
// a session's activity only from its followers, lets the session expire a
// TTL after the last word it had (integration
// TestZooKeeperRenewalThroughCutOffFollower). It is the
// session's only heartbeat: go-zookeeper's own pings are off on session
// connections. A sync that gets no reply within half the session
// timeout drops the TCP connection it was sent on (if go-zookeeper has not
// reconnected meanwhile), so
// that go-zookeeper reconnects, to another server if this one is gone,
// and the session goes on if it still lives. The drop does not come at
// ctx's end: package lease bounds a renewal by the holder's deadline only
// and closes the session once it passes, and Close can send closeSession
// only on a live connection (dropped, go-zookeeper waits a second before
// it reconnects to a lone server, and the successor would wait for the
// server to expire the session). Half the timeout is above any latency
// a holder survives (lease.Options.LatencyBound, below half the TTL), and
// leaves go-zookeeper time to reconnect before the server expires the
// session.
// While the connection is down KeepAlive fails; it returns an error
// wrapping ErrSessionExpired once the server reports the session expired.
func (ss *session) KeepAlive(ctx context.Context) error {
	what := "zookeeper: keep session " + ss.ID() + " alive"
	if err := ss.gone(what); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return classify(what, ctx, ctx.Err())
	}
	err := ss.s.callErr(ctx, func() error {
		stalled := time.AfterFunc(ss.ttl/2, ss.l.stalled())
		defer stalled.Stop()
		_, err := ss.l.conn.Sync("/")
		return err
	})
	return ss.outcome(what, ctx, err)
}

// Close closes the session's connection, which sends closeSession: the
// server deletes the session's nodes before it answers. A session already
// expired returns nil at once. If the connection is down, the request
// cannot be sent: Close returns an error and the server ends the session
// when its timeout runs out.
func (ss *session) Close(ctx context.Context) error {
	what := "zookeeper: close session " + ss.ID()
	if !ss.closing.CompareAndSwap(false, true) {
		return nil
	}
	ss.s.own.drop("", ownedBy(ss.ID()))
	ss.s.unserve(ss.l)
	if ss.l.expired.Load() || ss.l.conn.SessionID() != ss.id {
		ss.s.spawn(func() { ss.s.closeLink(ss.l) })
		return nil
	}
	connected := ss.l.conn.State() == zk.StateHasSession
	switch err := ss.s.call(ctx, func() { ss.s.closeLink(ss.l) }); {
	case errors.Is(err, errStoreClosed):
		return nil // Store.Close closes it
	case err != nil:
		return classify(what, ctx, err)
	}
	if !connected {
		return fmt.Errorf("%s: not connected: the server ends the session when its %v timeout runs out", what, ss.ttl)
	}
	return nil
}
