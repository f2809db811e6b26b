package storeurl

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// probeZooKeeper connects to the ensemble as go-zookeeper does (with tc,
// TLS) and waits until a server gives a session, then closes it. It gives
// up once every server failed, or after timeout, and names each server's
// last failure: the dial, the TLS handshake, or the server closing the
// connection before its answer.
func probeZooKeeper(hosts []string, tc *tls.Config, timeout time.Duration) error {
	p := &zkProbe{tls: tc, timeout: timeout, errs: make(map[string]error), want: len(hosts), failed: make(chan struct{})}
	conn, events, err := zk.Connect(hosts, timeout, zk.WithDialer(p.dial), zk.WithLogger(nopLogger{}), zk.WithLogInfo(false))
	if err != nil {
		return fmt.Errorf("zookeeper %v: %w", hosts, err)
	}
	defer func() { p.closeConns(); conn.Close() }()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return nil
			}
		case <-p.failed:
			return fmt.Errorf("%w%s", p.err(hosts, "every server failed"), tlsHint(hosts, tc != nil))
		case <-deadline.C:
			return p.err(hosts, fmt.Sprintf("no session within --dial-timeout %v", timeout))
		}
	}
}

// zkProbe records the last failure at each server.
type zkProbe struct {
	tls     *tls.Config
	timeout time.Duration
	want    int

	mu     sync.Mutex
	errs   map[string]error
	conns  []net.Conn    // every connection made, closed when the probe ends
	failed chan struct{} // closed once every server has failed
}

// closeConns closes the probe's connections, so that go-zookeeper's Close
// does not wait for a server that never answered.
func (p *zkProbe) closeConns() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
}

// dial is go-zookeeper's dialer: TCP, or TLS with its handshake done.
func (p *zkProbe) dial(network, addr string, _ time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
	defer cancel()
	var c net.Conn
	var err error
	if p.tls != nil {
		c, err = (&tls.Dialer{Config: p.tls}).DialContext(ctx, network, addr)
	} else {
		c, err = (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	if err != nil {
		p.fail(addr, err)
		return nil, err
	}
	p.mu.Lock()
	p.conns = append(p.conns, c)
	p.mu.Unlock()
	return &probeConn{Conn: c, p: p, addr: addr}, nil
}

// fail records err as addr's last failure.
func (p *zkProbe) fail(addr string, err error) {
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("the server closed the connection before answering (%w)", err)
	case p.tls != nil && isTLSAlert(err) && len(p.tls.Certificates) == 0:
		err = fmt.Errorf("%w (the server refused the TLS handshake: it may require a client certificate, --cert and --key)", err)
	case p.tls != nil && isTLSAlert(err):
		err = fmt.Errorf("%w (the server refused the TLS handshake: it may not trust the CA of the client certificate)", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	first := len(p.errs) < p.want
	p.errs[addr] = err
	if first && len(p.errs) == p.want {
		close(p.failed)
	}
}

// err names each server's last failure.
func (p *zkProbe) err(hosts []string, why string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for addr, err := range p.errs {
		errs = append(errs, fmt.Errorf("%s: %w", addr, err))
	}
	if len(errs) == 0 && len(p.conns) > 0 {
		errs = append(errs, errors.New("connected, but no server answered the session request"))
	} else if len(errs) == 0 {
		errs = append(errs, errors.New("no connection made"))
	}
	return fmt.Errorf("zookeeper %v: %s: %w", hosts, why, errors.Join(errs...))
}

// probeConn records the first read error of a connection.
type probeConn struct {
	net.Conn
	p    *zkProbe
	addr string
	once sync.Once
}

// Read reads from the server; a failure is recorded.
func (c *probeConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		c.once.Do(func() { c.p.fail(c.addr, err) })
	}
	return n, err
}

// nopLogger silences go-zookeeper's own logging.
type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}
