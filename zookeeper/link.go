package zookeeper

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// errNoRedial is what a session's dialer returns once its session has
// expired or been closed, so that go-zookeeper cannot open a new session
// on that connection behind the elector's back.
var errNoRedial = errors.New("zookeeper: session ended: not reconnecting")

// link is one go-zookeeper connection and what the Store learns about it
// through go-zookeeper's hooks: its dialer, host provider and event
// callback.
//
// A session link carries one ZooKeeper session for its whole life: it is
// dialed with the session's TTL as timeout, go-zookeeper's own pings are
// silenced (see handshakeConn; KeepAlive is the only heartbeat), and once
// the session expired or was closed it never dials again. The Store's read
// link is a plain go-zookeeper connection that pings and renews its
// session by itself.
//
// Either kind can be the Store's reader (see reader.go) once authed is
// closed with authErr nil: its credentials are in.
type link struct {
	conn    *zk.Conn
	events  <-chan zk.Event       // closed when go-zookeeper's goroutines end
	ttl     time.Duration         // session links: the timeout to ask for; 0 for the read link
	tls     *tls.Config           // Options.TLS: nil for plain TCP
	route   func(*link, zk.Event) // gets every event (see event)
	log     *slog.Logger          // Options.Logger
	authed  chan struct{}         // closed once the credentials are added
	authErr error                 // why they could not be, set before authed is closed
	retired atomic.Bool           // session link: its session is closing; read no more on it

	zxid        atomic.Int64  // highest zxid of a Stat received on the link (see saw)
	timeout     atomic.Int64  // session timeout negotiated at the last handshake, ns (see handshakeConn)
	expired     atomic.Bool   // session link: the server reported the session expired
	dialed      atomic.Bool   // a TCP connection was made at least once
	tried       chan struct{} // closed when go-zookeeper has tried every server in vain
	connectedAt atomic.Int64  // when a connection with a session was made, if Next was not asked since (ns)
	onTried     sync.Once
	onClose     sync.Once

	mu      sync.Mutex
	closed  bool     // close was called: dial no more
	current net.Conn // the TCP connection in use, for drop
	failure error    // the last dial or read failure, for noSession
}

// dialLink opens a go-zookeeper connection; it does not wait for it.
// ttl is 0 for the read link and the session timeout for a session link;
// route gets the link's watch events (see link.event).
func dialLink(servers []string, timeout, ttl time.Duration, o Options, route func(*link, zk.Event)) (*link, error) {
	l := &link{ttl: ttl, tls: o.TLS, route: route, log: o.logger(), authed: make(chan struct{}), tried: make(chan struct{})}
	conn, events, err := zk.Connect(servers, timeout, o.connect(l))
	if err != nil {
		return nil, err
	}
	l.conn, l.events = conn, events
	return l, nil
}

// dial is go-zookeeper's Dialer for the link.
func (l *link) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	if l.expired.Load() {
		return nil, errNoRedial
	}
	c, err := l.connect(network, addr, timeout)
	if err != nil {
		l.failed(err)
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed { // a connection made after close could outlive it
		_ = c.Close()
		return nil, errNoRedial
	}
	l.current = c
	l.dialed.Store(true)
	return &handshakeConn{Conn: c, l: l}, nil
}

// connect makes a TCP connection to addr within timeout (go-zookeeper's
// connect timeout, 1 s), or with TLS a TLS connection whose handshake is
// done within handshakeTimeout: on a loaded machine a handshake can take
// longer than a second, and go-zookeeper's timeout, meant for the TCP
// connect, would then fail every attempt, and a session that tries each
// server once would give up on a reachable store.
func (l *link) connect(network, addr string, timeout time.Duration) (net.Conn, error) {
	if l.tls == nil {
		return net.DialTimeout(network, addr, timeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout(timeout, l.ttl))
	defer cancel()
	return (&tls.Dialer{NetDialer: &net.Dialer{Timeout: timeout}, Config: l.tls}).DialContext(ctx, network, addr)
}

// maxHandshake bounds the time a TLS handshake may take.
const maxHandshake = 10 * time.Second

// handshakeTimeout is the bound on a TLS connection and its handshake: half
// the session TTL, but no less than the connect timeout and no more than
// maxHandshake, so that the session can still be made within its TTL.
func handshakeTimeout(connect, ttl time.Duration) time.Duration {
	return max(connect, min(ttl/2, maxHandshake))
}

// hosts is go-zookeeper's host provider, telling the link when go-zookeeper
// has been through every server without getting a session (it then fails
// the requests it holds and pauses for a second).
//
// Right after a connection with a session that lasted at least a second
// is lost, it lets go-zookeeper dial at once, even if the next server is
// the one just lost (as with a single server, where go-zookeeper would
// otherwise pause first): so a session link whose session the server
// expired, and closed the connection of, learns it within a round trip,
// and the watches on it move to the Store's reader of the moment without
// that second's delay. A connection that lasted less gets the pause, so
// that go-zookeeper never dials one server faster than once a second.
type hosts struct {
	*zk.DNSHostProvider
	l *link
}

// Next returns the next server to dial.
func (h hosts) Next() (server string, retryStart bool) {
	server, retryStart = h.DNSHostProvider.Next()
	if since := h.l.connectedAt.Swap(0); since != 0 && time.Since(time.Unix(0, since)) >= time.Second {
		retryStart = false
	}
	if retryStart {
		h.l.onTried.Do(func() { close(h.l.tried) })
	}
	return server, retryStart
}

// Connected records a connection with a session.
func (h hosts) Connected() {
	h.DNSHostProvider.Connected()
	h.l.connectedAt.Store(time.Now().UnixNano()) // go-zookeeper asks Next again once it is lost
}

// failed records the last failure of a connection: a dial (refused, a TLS
// handshake) or a read (the server closed it, a TLS alert).
func (l *link) failed(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.failure = err
	}
}

// noSession says why no server gave the link a session, with the last
// connection failure. Only if no TCP connection was ever made is it sure
// that no connect request was sent.
func (l *link) noSession() error {
	l.mu.Lock()
	last := l.failure
	l.mu.Unlock()
	why := ""
	if last != nil {
		why = fmt.Sprintf(" (last failure: %v)", last)
	}
	if backends.CertificateFailure(last) { // every server was tried; the last one's certificate failed
		return fmt.Errorf("no server gave a session: last failure: %w", last)
	}
	if l.dialed.Load() {
		return fmt.Errorf("no server gave a session%s (a connect request may have reached one)", why)
	}
	return fmt.Errorf("no server reachable%s: %w", why, zk.ErrNoServer)
}

// event is go-zookeeper's event callback; it runs on go-zookeeper's
// goroutine before that goroutine dials again, and must not block.
// go-zookeeper calls it with every change of state, with every watch
// notification (with its path) before it wakes the watch's own channel,
// and with an EventNotWatching for every path watched when the watches
// end (the session expired, or the connection closed); route gets them
// all.
func (l *link) event(ev zk.Event) {
	if ev.Type == zk.EventSession && ev.State == zk.StateExpired && l.ttl > 0 {
		l.expired.Store(true)
	}
	if l.route != nil {
		l.route(l, ev)
	}
}

// ready marks the link as fit to read on, or not with err; once.
func (l *link) ready(err error) {
	l.authErr = err
	close(l.authed)
}

// saw records the zxids of a Stat received on l. Each is at or before the
// position of the server's reply, and ZooKeeper serves a session's
// requests in order, at positions that never go back (a server behind the
// last zxid a client saw refuses its connection): so, on a session link,
// l.zxid is at or before the position of every read sent on l after it
// was loaded. Not on the read link: when its session expires,
// go-zookeeper opens another on it and forgets the last zxid it saw.
func (l *link) saw(st *zk.Stat) {
	if st == nil {
		return
	}
	zxid := max(st.Czxid, st.Mzxid, st.Pzxid)
	for {
		old := l.zxid.Load()
		if zxid <= old || l.zxid.CompareAndSwap(old, zxid) {
			return
		}
	}
}

// position returns the highest zxid of a Stat l received (saw), at least
// 1: on a session link, a position at or before the state every later
// read on l sees.
func (l *link) position() uint64 { return max(uint64(l.zxid.Load()), 1) }

// has reports whether every later read on l sees the write at zxid or a
// later state, so that it needs no sync to see that write: l is a session
// link and zxid is at or before its position. Never on the read link
// (see saw).
func (l *link) has(zxid uint64) bool { return l.ttl != 0 && zxid <= l.position() }

// negotiated returns the session timeout of the last handshake.
func (l *link) negotiated() time.Duration { return time.Duration(l.timeout.Load()) }

// drop closes the TCP connection in use, so that go-zookeeper reconnects
// (to the next server, within the session if it still lives).
func (l *link) drop() {
	l.mu.Lock()
	c := l.current
	l.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

// stalled returns a function that drops the link's TCP connection if it
// is still the one in use when stalled was called and go-zookeeper had a
// session on it then; otherwise the function does nothing, so that it
// never cuts a reconnect short.
func (l *link) stalled() func() {
	l.mu.Lock()
	c := l.current
	l.mu.Unlock()
	if c == nil || l.conn.State() != zk.StateHasSession {
		return func() {}
	}
	return func() {
		l.mu.Lock()
		same := l.current == c
		l.mu.Unlock()
		if same {
			_ = c.Close()
		}
	}
}

// closeWait bounds how long close waits for go-zookeeper's goroutines.
// go-zookeeper v1.0.4's loop can block for ever in flushRequests, sending a
// third answer to a request whose channel holds two (seen at Close under
// load, with a thousand connections); close must not block with it.
const closeWait = 5 * time.Second

// close closes the go-zookeeper connection, which sends closeSession if it
// is connected (go-zookeeper waits up to a second for the answer), drops
// the TCP connection so that go-zookeeper's reader ends even if the server
// never answered, and waits up to closeWait for go-zookeeper's goroutines
// to end; past it, a goroutine of its own drains their events. It runs
// once; later calls wait for the first.
func (l *link) close() {
	l.onClose.Do(func() {
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
		l.conn.Close()
		l.drop()
		give := time.NewTimer(closeWait)
		defer give.Stop()
		for {
			select {
			case _, ok := <-l.events: // closed when go-zookeeper's loop returns
				if !ok {
					return
				}
			case <-give.C:
				l.log.Warn("go-zookeeper's connection loop did not end on close; left behind", "waited", closeWait)
				go func() {
					for range l.events {
					}
				}()
				return
			}
		}
	})
}
