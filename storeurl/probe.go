package storeurl

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/hashicorp/consul/api"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/status"
)

// tlsSchemes are the schemes that turn TLS on without TLS files.
var tlsSchemes = map[string]bool{"etcds": true, "zks": true, "consuls": true}

// useTLS reports whether the URL's scheme or the options ask for TLS.
func useTLS(scheme string, opts Options) bool { return tlsSchemes[scheme] || opts.tls() }

// checkHosts checks that every address of the URL is host:port with a host
// and a port in 1..65535; with defaultPort, a host alone is allowed too.
func checkHosts(store string, hosts []string, defaultPort bool) error {
	for _, h := range hosts {
		if err := checkHost(h, defaultPort); err != nil {
			return fmt.Errorf("%s URL: address %q: %w", store, h, err)
		}
	}
	return nil
}

func checkHost(h string, defaultPort bool) error {
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		if strings.Contains(strings.Trim(h, "[]"), ":") {
			return fmt.Errorf("%w: want host:port", err)
		}
		if !defaultPort {
			return errors.New("no port: want host:port")
		}
		host, port = h, "1"
	}
	if host == "" {
		return errors.New("no host: want host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q: want a number in 1..65535", port)
	}
	return nil
}

// probeEtcd asks the cluster for a member's status within timeout. It
// calls gRPC directly, not through clientv3's Status, which replaces a
// failed call's error with the context's: gRPC's own error names the
// connection's failure (refused, TLS handshake, ...), and without waiting
// for readiness the call fails as soon as every endpoint's first
// connection attempt has.
func probeEtcd(ctx context.Context, c *clientv3.Client, endpoints []string, tlsOn bool, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := pb.NewMaintenanceClient(c.ActiveConnection()).Status(ctx, &pb.StatusRequest{})
	if err == nil {
		return nil
	}
	msg := status.Convert(err).Message()
	if ctx.Err() != nil {
		return fmt.Errorf("etcd %v: no answer within --dial-timeout %v: %s", endpoints, timeout, msg)
	}
	return fmt.Errorf("etcd %v: %s%s", endpoints, msg, tlsHint(endpoints, tlsOn))
}

// probeConsul asks the agent for the cluster's leader within timeout. If
// that fails over TLS, a handshake of its own names the TLS failure: Go's
// HTTP/2 client may report a refused client certificate only as "client
// conn could not be established".
func probeConsul(ctx context.Context, c *api.Client, addr string, tc *tls.Config, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	leader, err := c.Status().LeaderWithQueryOptions((&api.QueryOptions{}).WithContext(ctx))
	switch {
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("consul %s: no answer within --dial-timeout %v: %w", addr, timeout, err)
	case err != nil && tc != nil:
		if terr := tlsFailure(strings.TrimPrefix(addr, "https://"), tc); terr != nil && !strings.Contains(err.Error(), terr.Error()) {
			return fmt.Errorf("consul %s: TLS: %w (%w)", addr, terr, err)
		}
		return fmt.Errorf("consul %s: %w", addr, err)
	case err != nil:
		return fmt.Errorf("consul %s: %w", addr, err)
	case leader == "":
		return fmt.Errorf("consul %s: the agent answers but knows no cluster leader", addr)
	}
	return nil
}

// tlsFailure makes a TLS handshake with addr and waits briefly for an alert
// that follows it (with TLS 1.3 a server refuses a client certificate only
// after the client's side of the handshake is done). It returns the
// failure, or nil if there was none.
func tlsFailure(addr string, tc *tls.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c, err := (&tls.Dialer{Config: tc}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	_, err = c.Read(make([]byte, 1))
	if isTLSAlert(err) {
		return err
	}
	return nil
}

// isTLSAlert reports whether err is an alert the TLS peer sent.
func isTLSAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}

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

// tlsHint returns, for a plaintext first contact that failed, a note
// naming the addresses that speak TLS: the URL then wants TLS. It returns
// "" with TLS on, or if no address speaks TLS.
func tlsHint(addrs []string, tlsOn bool) string {
	if tlsOn {
		return ""
	}
	var speak []string
	for _, a := range addrs {
		if i := strings.Index(a, "://"); i >= 0 {
			a = a[i+3:]
		}
		if speaksTLS(a) {
			speak = append(speak, a)
		}
	}
	if len(speak) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s answers a TLS handshake: the server wants TLS; use --cacert or the scheme's TLS form, etcds, zks or consuls)", strings.Join(speak, ", "))
}

// speaksTLS reports whether addr answers a TLS ClientHello with a TLS
// record: a handshake that completes, or an alert (as a server that
// requires a client certificate sends). Nothing is sent after the
// handshake, so the server's certificate need not be verified.
func speaksTLS(addr string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // a probe: no data is sent
	c, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		_ = c.Close()
		return true
	}
	return isTLSAlert(err)
}
