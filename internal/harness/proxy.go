package harness

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"sync"
	"time"
)

// ProxyOptions configure a Proxy. The zero value forwards plain TCP.
type ProxyOptions struct {
	// ListenTLS, if set, makes the proxy serve its clients over TLS with
	// it (its certificate, and ClientCAs to verify theirs). Default nil.
	ListenTLS *tls.Config
	// DialTLS, if set, makes the proxy dial the target over TLS with it.
	// Default nil.
	DialTLS *tls.Config
	// FirstReply, if set, reads the target's first message of every
	// connection from r and returns the bytes to forward to the client in
	// its place (a harness reads a session's credentials there). An error
	// drops the connection. Default nil: everything is copied as is.
	FirstReply func(r io.Reader) ([]byte, error)
}

// Proxy forwards TCP connections from a port of 127.0.0.1 to one address,
// so that a test can cut a client off the way a crash or a network cut
// would: Sever closes every connection abruptly, and the client's store
// sees it drop with no goodbye. Its methods are safe for concurrent use.
type Proxy struct {
	ln     net.Listener
	target string
	opts   ProxyOptions

	mu      sync.Mutex
	severed bool
	latency time.Duration // added to the target's bytes on their way back
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
	once    sync.Once
}

// StartProxy starts a proxy to target (host:port) on a free port of
// 127.0.0.1.
func StartProxy(target string, opts ProxyOptions) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if opts.ListenTLS != nil {
		ln = tls.NewListener(ln, opts.ListenTLS)
	}
	p := &Proxy{ln: ln, target: target, opts: opts, conns: make(map[net.Conn]struct{})}
	p.wg.Go(p.accept)
	return p, nil
}

// Addr returns the address (127.0.0.1:port) to dial instead of the
// target's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Sever closes every connection through the proxy and refuses new ones
// (it accepts and closes them at once) until Heal. It keeps its port, so
// no other listener can take it and answer a severed client.
func (p *Proxy) Sever() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.severed = true
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// Heal undoes Sever: new connections are forwarded again. The client
// reconnects by itself, on its own schedule.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.severed = false
}

// Close severs the proxy, closes its port and waits for its goroutines.
// Closing it twice is harmless.
func (p *Proxy) Close() {
	p.once.Do(func() {
		p.Sever()
		_ = p.ln.Close()
		p.wg.Wait()
	})
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			continue
		}
		p.wg.Go(func() { p.forward(c) })
	}
}

// track registers conns, or closes them and reports false while the proxy
// is severed.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		if p.severed {
			_ = c.Close()
			continue
		}
		p.conns[c] = struct{}{}
	}
	return !p.severed
}

// untrack closes conns and forgets them.
func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// forward dials the target for client c and copies both ways until either
// side fails, then closes both.
func (p *Proxy) forward(c net.Conn) {
	up, err := dial(context.Background(), p.target, p.opts.DialTLS)
	if err != nil {
		p.untrack(c)
		return
	}
	defer p.untrack(c, up)
	if !p.track(up) {
		return
	}
	done := make(chan struct{})
	go func() { // the client speaks first on some protocols (ZooKeeper)
		defer close(done)
		_, _ = io.Copy(up, c)
		_ = up.Close()
	}()
	defer func() { <-done }()
	defer c.Close()
	if p.opts.FirstReply != nil {
		b, err := p.opts.FirstReply(up)
		if err != nil {
			return
		}
		if _, err := c.Write(b); err != nil {
			return
		}
	}
	p.copyBack(c, up)
}

// SetLatency delays every byte the target sends from now on by d before
// the client gets it, as a slow link would (0: none); the client's bytes
// go through at once.
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// copyBack copies the target's bytes to the client, each chunk held back
// until the latency set when it arrived has passed, in order.
func (p *Proxy) copyBack(c io.Writer, up io.Reader) {
	type chunk struct {
		b   []byte
		due time.Time
	}
	q := make(chan chunk, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ch := range q {
			time.Sleep(time.Until(ch.due)) // the link's latency, not a wait for a condition
			if _, err := c.Write(ch.b); err != nil {
				for range q { // drain, so that the reader is never blocked
				}
				return
			}
		}
	}()
	defer func() { close(q); <-done }()
	buf := make([]byte, 32<<10)
	for {
		n, err := up.Read(buf)
		if n > 0 {
			p.mu.Lock()
			due := time.Now().Add(p.latency)
			p.mu.Unlock()
			q <- chunk{b: bytes.Clone(buf[:n]), due: due}
		}
		if err != nil {
			return
		}
	}
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
