package zktest

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"time"

	"github.com/leasehold/leasehold/zookeeper/internal/wire"
)

// proxy forwards TCP connections from a loopback port to one server and
// reports the session of each connect response it forwards. With TLS it
// terminates TLS on both sides: it serves its clients with tlsConfig.Server
// and dials the server with tlsConfig.Client, so that it can read the
// handshake.
type proxy struct {
	ln      net.Listener
	target  string
	session func(id int64, password []byte)
	up      *tls.Config // the server's side; nil for TCP

	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// proxyTLS are a proxy's TLS configurations: Server for its clients,
// Client for the server it forwards to. Both are nil for plain TCP.
type proxyTLS struct{ Server, Client *tls.Config }

func startProxy(target string, session func(int64, []byte), tc proxyTLS) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if tc.Server != nil {
		ln = tls.NewListener(ln, tc.Server)
	}
	p := &proxy{ln: ln, target: target, session: session, up: tc.Client, conns: make(map[net.Conn]struct{})}
	p.wg.Go(p.accept)
	return p, nil
}

// Addr is the address to dial instead of the server's.
func (p *proxy) Addr() string { return p.ln.Addr().String() }

// Close stops accepting, closes every connection both ways and waits for
// the proxy's goroutines. The server sees the connections drop; no
// closeSession is sent.
func (p *proxy) Close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	_ = p.ln.Close()
	p.wg.Wait()
}

func (p *proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := dial(context.Background(), p.target, p.up)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !p.track(client, server) {
			return
		}
		p.wg.Go(func() { p.pipe(client, server, false) })
		p.wg.Go(func() { p.pipe(server, client, true) })
	}
}

// track registers a pair of connections, or closes them if the proxy is
// closed.
func (p *proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		if p.closed {
			_ = c.Close()
			continue
		}
		p.conns[c] = struct{}{}
	}
	return !p.closed
}

// untrack closes connections and forgets them.
func (p *proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// pipe copies from src to dst until either fails, then closes both. From
// the server, it first reads the connect response to learn the session.
func (p *proxy) pipe(src, dst net.Conn, fromServer bool) {
	defer p.untrack(src, dst)
	if fromServer {
		frame, err := wire.ReadFrame(src)
		if err != nil {
			return
		}
		if r, err := wire.ParseConnectResponse(frame); err == nil && r.SessionID != 0 {
			p.session(r.SessionID, r.Password)
		}
		if _, err := dst.Write(frame); err != nil {
			return
		}
	}
	_, _ = io.Copy(dst, src)
}

// dial connects to addr, over TLS with tc if it is not nil, within 5 s.
func dial(ctx context.Context, addr string, tc *tls.Config) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if tc != nil {
		return (&tls.Dialer{Config: tc}).DialContext(ctx, "tcp", addr)
	}
	return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
}
