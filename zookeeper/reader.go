package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"
)

// The Store reads and watches (Get, Ahead, Dequeue, the reads of
// GuardedPut, and the WatchSets) on one connection at a time, its
// reader: the connection of one of its open sessions if it has one, whose
// KeepAlive keeps it alive at no extra cost, and otherwise a connection of
// its own, the read link. The read link pings by itself (go-zookeeper
// pings every third of its session timeout), so it is opened only while
// no session's connection can serve, and closed once one can and no call
// is reading on it. A watch on a connection that closes, or whose session
// expires, ends with an EventNotWatching: the WatchSet request that set
// it reads again on the reader of the moment, as soon as the connection
// drops (see the driver's Watch).

// reader returns the link to read on, and done, to call when the read is
// over. It waits for the read link's credentials, if it is that link.
func (s *store) reader(ctx context.Context) (*link, func(), error) {
	return s.readerBut(ctx, nil)
}

// readerBut is reader, with the link avoid passed over if it is a
// session's.
func (s *store) readerBut(ctx context.Context, avoid *link) (*link, func(), error) {
	s.mu.Lock()
	l, done, err := s.pickReader(avoid)
	s.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	select {
	case <-l.authed: // closed already on a session's link
		if l.authErr != nil {
			done()
			return nil, nil, l.authErr
		}
		return l, done, nil
	case <-ctx.Done():
		done()
		return nil, nil, ctx.Err()
	}
}

// pickReader returns a session's link but avoid if one can serve, and
// otherwise the read link, dialed if needed; s.mu is held.
func (s *store) pickReader(avoid *link) (*link, func(), error) {
	if s.closed {
		return nil, nil, errStoreClosed
	}
	if l := s.sessionReader(avoid); l != nil {
		return l, func() {}, nil
	}
	if s.read == nil {
		if err := s.dialRead(); err != nil {
			return nil, nil, err
		}
	}
	return s.read, s.useRead(), nil
}

// useRead counts a call on the read link and returns the function that
// ends it; s.mu is held.
func (s *store) useRead() func() {
	s.reading++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.reading--
			s.retireRead()
		})
	}
}

// sessionReader returns the first session link but avoid that can
// serve; s.mu is held.
func (s *store) sessionReader(avoid *link) *link {
	for _, l := range s.serving {
		if l != avoid && serves(l) {
			return l
		}
	}
	return nil
}

// serves reports whether a session link can serve reads: its session is
// open, not closing, not known to be expired, and connected.
func serves(l *link) bool {
	return !l.retired.Load() && !l.expired.Load() && l.conn.State() == zk.StateHasSession
}

// readFor runs fn on the reader as a call bounded by ctx (callFor). If fn
// fails because the session connection it ran on went away (the
// connection dropped, the session expired or is closing), it runs fn once
// more on the reader of the moment: the failure was that session's, not
// the store's, and on the Store's own connection the read would not have
// failed. The second run is not on the link of the first. fn must be a
// read, or a write that may be repeated.
func readFor[T any](s *store, ctx context.Context, fn func(*link) (T, error)) (T, error) {
	var failed *link
	for try := 0; ; try++ {
		l, done, err := s.readerBut(ctx, failed)
		if err != nil {
			var zero T
			return zero, err
		}
		v, err := callFor(s, ctx, func() (T, error) { return fn(l) })
		done()
		if err == nil || try > 0 || !leftBehind(l, err) {
			return v, err
		}
		failed = l
	}
}

// leftBehind reports whether err is the failure of a request on a
// session link that cannot serve anymore, from go-zookeeper losing the
// connection or the session. go-zookeeper fails a request with
// ErrConnectionClosed as soon as its write to a socket the server closed
// fails, before the connection stops reporting a session (the server
// closes an expiring session's socket): that failure is the link's too.
func leftBehind(l *link, err error) bool {
	closed := errors.Is(err, zk.ErrConnectionClosed)
	lost := closed || errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrSessionExpired) || errors.Is(err, zk.ErrClosing)
	return l.ttl > 0 && lost && (closed || !serves(l))
}

// dialRead opens the read link and adds the credentials to it in the
// background; s.mu is held.
func (s *store) dialRead() error {
	timeout := min(max(readTimeout, s.opts.MinTTL), s.opts.MaxTTL)
	l, err := dialLink(s.servers, timeout, 0, s.opts, s.route)
	if err != nil {
		return fmt.Errorf("connect to %v: %w", s.servers, err)
	}
	s.read = l
	s.goLocked(func() { s.authRead(l) })
	return nil
}

// authRead adds the credentials to the read link l, and then, the first
// time with credentials, warns about an open Prefix (warnOpenPrefix).
func (s *store) authRead(l *link) {
	for _, a := range s.opts.Auth {
		if err := l.conn.AddAuth(a.Scheme, a.Credentials); err != nil {
			l.ready(fmt.Errorf("add %s credentials: %w", identity([]Auth{a}), err))
			return
		}
	}
	l.ready(nil)
	if len(s.opts.Auth) > 0 {
		s.warned.Do(func() { s.warnOpenPrefix(l) })
	}
}

// retireRead closes the read link if a session's link can take over and
// no call is reading on it; s.mu is held. Watches left on it end, and
// their Waits read again on the session's link.
func (s *store) retireRead() {
	if s.read == nil || s.reading > 0 || s.sessionReader(nil) == nil || s.closed {
		return
	}
	r := s.read
	s.read = nil
	s.goLocked(r.close)
}

// serve makes an open session's link a reader; it fails once closed.
func (s *store) serve(l *link) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	l.ready(nil)
	s.serving = append(s.serving, l)
	s.retireRead()
	return true
}

// unserve stops reading on a session's link, before its session closes.
func (s *store) unserve(l *link) {
	l.retired.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.serving = slices.DeleteFunc(s.serving, func(m *link) bool { return m == l })
}

// route takes an event of link l: a watch's goes to every WatchSet, and
// so does a lost connection; a session link's regained session may
// retire the read link.
func (s *store) route(l *link, ev zk.Event) {
	switch {
	case ev.Path != "" || (ev.Type == zk.EventSession && ev.State == zk.StateDisconnected):
		for _, st := range *s.streams.Load() {
			st.notify(l, ev)
		}
	case ev.Type != zk.EventSession:
	case ev.State == zk.StateHasSession && l.ttl > 0:
		s.mu.Lock()
		s.retireRead()
		s.mu.Unlock()
	}
}
