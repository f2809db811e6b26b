// Package zktest connects the conformance and elector suites to a running
// ZooKeeper ensemble. It dials the servers it is given; starting them is the
// caller's business (a local server in development, containers in
// integration tests).
//
// Each Store reaches the servers through proxies of its own on 127.0.0.1,
// so that sever can cut it off the way a crash would: closing a
// go-zookeeper connection is no crash, as it sends closeSession and the
// server deletes the session's nodes at once. The proxies also read each
// session's password from the handshake, which ExpireSession needs to end a
// session the way ZooKeeper's own tests do.
package zktest

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/harness"
	"github.com/leasehold/leasehold/zookeeper"
)

// Harness is a backendtest.Harness on the ZooKeeper ensemble at Servers.
// Its methods are safe for concurrent use.
type Harness struct {
	// Servers are the servers' client addresses, "host:port".
	Servers []string
	// TickTime is the servers' tickTime, from which the Stores' TTL limits
	// follow (see zookeeper.Options). Default zookeeper.DefaultTickTime.
	TickTime time.Duration
	// TLS, if set, makes the harness speak TLS: the Stores dial their
	// proxies with TLS.Client (as zookeeper.Options.TLS), and the proxies
	// serve them with TLS.Server and dial the servers' TLS client ports
	// with TLS.Client. Default nil: plain TCP.
	TLS *TLS

	mu        sync.Mutex
	passwords map[int64][]byte // session ID → password, from the proxies
}

// NewStore returns a Store whose connections go through a Link of its
// own (see Connect); sever severs the Link.
func (h *Harness) NewStore(t testing.TB) (*backends.Store, func()) {
	t.Helper()
	s, l := h.Connect(t)
	return s, l.Sever
}

// Connect returns a Store whose connections go through a Link of its own,
// closed with the Store when t ends. Severing the Link cuts every
// connection through it: the Store's calls fail from then on and its
// sessions are left to expire on the servers, as after a crash. Healing
// it lets the Store reconnect.
func (h *Harness) Connect(t testing.TB) (*backends.Store, *harness.Link) {
	t.Helper()
	l := harness.NewLink(t, h.Servers, h.proxyOptions())
	s, err := zookeeper.New(l.Addrs(), h.Options())
	if err != nil {
		t.Fatalf("zktest: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, l
}

// Options returns the store options the harness uses: TickTime, and
// go-zookeeper's logging off.
func (h *Harness) Options() zookeeper.Options {
	return zookeeper.Options{TickTime: h.tickTime(), TLS: h.clientTLS(),
		ConnOptions: []func(*zk.Conn){zk.WithLogger(nopLogger{})}}
}

// TLS are the harness's TLS configurations: Client is a client's, which
// trusts the servers' CA and presents a certificate they accept; Server is
// what the proxies present to the Stores, and whose client CAs they
// require.
type TLS struct{ Client, Server *tls.Config }

func (h *Harness) clientTLS() *tls.Config {
	if h.TLS == nil {
		return nil
	}
	return h.TLS.Client
}

// proxyOptions are the Links' options: with TLS, the proxies serve the
// Stores with TLS.Server and dial the servers with TLS.Client, so that
// they can read each session's password from its connect response.
func (h *Harness) proxyOptions() harness.ProxyOptions {
	o := harness.ProxyOptions{FirstReply: h.readSession}
	if h.TLS != nil {
		o.ListenTLS, o.DialTLS = h.TLS.Server, h.TLS.Client
	}
	return o
}

// readSession reads a server's connect response and records the session's
// password.
func (h *Harness) readSession(r io.Reader) ([]byte, error) {
	frame, err := readFrame(r)
	if err != nil {
		return nil, err
	}
	if c, err := parseConnectResponse(frame); err == nil && c.sessionID != 0 {
		h.remember(c.sessionID, c.password)
	}
	return frame, nil
}

// ExpireSession ends the session with the given ID (hex, as Session.ID
// gives it) the way ZooKeeper's own tests do: it attaches a second
// connection to the session with its ID and password and closes the
// session from there. The server deletes the session's nodes before it
// answers, and the session's own connection learns that its session
// expired. The session must have been opened through a Store of this
// harness. An already expired session is not an error.
func (h *Harness) ExpireSession(ctx context.Context, id string) error {
	sid, err := strconv.ParseUint(id, 16, 64)
	if err != nil {
		return fmt.Errorf("zktest: session id %q is not hex: %w", id, err)
	}
	h.mu.Lock()
	pw, ok := h.passwords[int64(sid)]
	h.mu.Unlock()
	if !ok {
		return fmt.Errorf("zktest: session %s was not opened through this harness", id)
	}
	return closeSession(ctx, h.Servers, h.clientTLS(), int64(sid), pw)
}

// ExpiryGrace is one and a half of the servers' tickTime: ZooKeeper's
// leader expires sessions in tickTime buckets, and in an ensemble it
// learns of a follower's sessions' last renewals when it pings the
// follower, every half tickTime. A silent session so ends between its TTL
// and TTL + 1.5 tickTime after its last renewal.
func (h *Harness) ExpiryGrace(time.Duration) time.Duration { return h.tickTime() * 3 / 2 }

func (h *Harness) tickTime() time.Duration {
	if h.TickTime == 0 {
		return zookeeper.DefaultTickTime
	}
	return h.TickTime
}

// remember records a session's password.
func (h *Harness) remember(sessionID int64, password []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.passwords == nil {
		h.passwords = make(map[int64][]byte)
	}
	h.passwords[sessionID] = password
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}
