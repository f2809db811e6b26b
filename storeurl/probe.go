package storeurl

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/hashicorp/consul/api"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// tlsSchemes are the schemes that turn TLS on without TLS files.
var tlsSchemes = map[string]bool{"etcds": true, "zks": true, "consuls": true}

// useTLS reports whether the URL's scheme or the options ask for TLS.
func useTLS(scheme string, opts Options) bool { return tlsSchemes[scheme] || opts.tls() }

// probeEtcd asks the cluster for a member's status within timeout. It
// calls gRPC directly, not through clientv3's Status, which replaces a
// failed call's error with the context's: gRPC's own error names the
// connection's failure (refused, TLS handshake, ...), and without waiting
// for readiness the call fails as soon as every endpoint's first
// connection attempt has. With anyAnswer, a refusal by the server (a
// client without a user, where etcd's auth is on) is an answer too.
func probeEtcd(ctx context.Context, c *clientv3.Client, endpoints []string, tlsOn bool, timeout time.Duration, anyAnswer bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := pb.NewMaintenanceClient(c.ActiveConnection()).Status(ctx, &pb.StatusRequest{})
	if err == nil || anyAnswer && ctx.Err() == nil && status.Code(err) != codes.Unavailable {
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
