package integration

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/storeurl"
	"github.com/leasehold/leasehold/zookeeper"
	"github.com/leasehold/leasehold/zookeeper/zktest"
)

// TestTLS runs each store with mutual TLS (one server each, with a test
// PKI generated here): the conformance suite over TLS, a campaign and a
// resign through package lease and storeurl, and the failures a user
// meets first (no client certificate, one from another CA, the wrong CA,
// plaintext to the TLS port), each of which must fail at Open, name the
// endpoint and say what failed; and Campaign on Stores built without
// storeurl whose handshakes fail on a certificate (refusedTLS).
func TestTLS(t *testing.T) {
	certs := stores.NewCerts(t)
	t.Run("etcd", func(t *testing.T) {
		addr := stores.EtcdTLS(t, certs)
		h := &etcdtest.Harness{Endpoints: []string{"https://" + addr}, TLS: certs.ClientTLS(t)}
		t.Cleanup(h.Close)
		t.Run("Conformance", func(t *testing.T) { backendtest.RunConformanceTests(t, h) })
		tlsStore(t, "etcd", addr, certs, 2*time.Second)
		refusedTLS(t, certs, 2*time.Second, func(tc *tls.Config) *backends.Store {
			s, _ := (&etcdtest.Harness{Endpoints: []string{"https://" + addr}, TLS: tc}).NewStore(t)
			return s
		})
	})
	t.Run("consul", func(t *testing.T) {
		addr := stores.ConsulTLS(t, certs)
		h := &consultest.Harness{Addr: addr, TLS: certs.ClientTLS(t)}
		t.Run("Conformance", func(t *testing.T) { backendtest.RunConformanceTests(t, h) })
		tlsStore(t, "consul", addr, certs, consul.MinTTL)
		refusedTLS(t, certs, consul.MinTTL, func(tc *tls.Config) *backends.Store {
			s, err := consul.New((&consultest.Harness{Addr: addr, TLS: tc}).Client(t), consul.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
	t.Run("zookeeper", func(t *testing.T) {
		addr := stores.ZooKeeperTLS(t, certs)
		h := &zktest.Harness{Servers: []string{addr}, TickTime: stores.ZooKeeperTLSTick,
			TLS: &zktest.TLS{Client: certs.ClientTLS(t), Server: certs.ServerTLS(t)}}
		t.Run("Conformance", func(t *testing.T) { backendtest.RunConformanceTests(t, h) })
		tlsStore(t, "zk", addr, certs, 2*stores.ZooKeeperTLSTick)
		t.Run("SessionError", func(t *testing.T) { zkSessionError(t, addr, certs) })
		refusedTLS(t, certs, 2*stores.ZooKeeperTLSTick, func(tc *tls.Config) *backends.Store {
			s, err := zookeeper.New([]string{addr}, zookeeper.Options{TickTime: stores.ZooKeeperTLSTick, TLS: tc,
				ConnOptions: []func(*zk.Conn){zk.WithLogInfo(false)}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
}

// tlsStore runs the storeurl cases on the TLS server of scheme at addr.
func tlsStore(t *testing.T, scheme, addr string, certs *stores.Certs, ttl time.Duration) {
	query := ""
	if scheme == "zk" {
		query = "?tick=" + stores.ZooKeeperTLSTick.String()
	}
	url := scheme + "://" + addr + "/tls" + query
	mutual := storeurl.Options{CACert: certs.CA, Cert: certs.Client, Key: certs.ClientKey, DialTimeout: 5 * time.Second}
	t.Run("CampaignResign", func(t *testing.T) { campaignResign(t, url, mutual, ttl) })
	t.Run("Failures", func(t *testing.T) { tlsFailures(t, scheme, addr, url, certs) })
}

// campaignResign opens the store through storeurl with mutual TLS, wins
// an election, sees itself as leader and resigns.
func campaignResign(t *testing.T, url string, opts storeurl.Options, ttl time.Duration) {
	ctx := backendtest.Context(t, 30*time.Second)
	o, err := storeurl.Open(ctx, url, opts)
	if err != nil {
		t.Fatalf("Open %s with mutual TLS: %v", url, err)
	}
	defer o.Close()
	e, err := lease.New(o.Store, lease.Options{TTL: ttl, Identity: "tls-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	election := backendtest.Election(t)
	l, err := e.Campaign(ctx, election)
	if err != nil {
		t.Fatalf("Campaign over TLS: %v", err)
	}
	if info, err := e.Leader(ctx, election); err != nil || info.Identity != "tls-test" || info.Token != l.Token {
		t.Errorf("Leader over TLS = %+v, %v; want tls-test with token %d", info, err, l.Token)
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatalf("Resign over TLS: %v", err)
	}
	if info, err := e.Leader(ctx, election); !errors.Is(err, lease.ErrNoLeader) {
		t.Errorf("Leader after Resign = %+v, %v; want ErrNoLeader", info, err)
	}
}

// tlsFailures: each misconfiguration fails Open well within the dial
// timeout, with an error that names the endpoint and the cause.
func tlsFailures(t *testing.T, scheme, addr, url string, c *stores.Certs) {
	closed := closedPort(t)
	cases := []struct {
		name string
		url  string
		opts storeurl.Options
		want []string // each must appear in the error (any of a|b), besides the address
	}{
		{"no client certificate", url, storeurl.Options{CACert: c.CA}, []string{"tls", "certificate"}},
		{"certificate from another CA", url, storeurl.Options{CACert: c.CA, Cert: c.OtherClient, Key: c.OtherClientKey}, []string{"tls", "certificate"}},
		{"wrong CA", url, storeurl.Options{CACert: c.OtherCA, Cert: c.Client, Key: c.ClientKey}, []string{"certificate", "unknown authority"}},
		{"plaintext to the TLS port", url, storeurl.Options{}, []string{"tls|https"}},
		{"closed port", strings.Replace(url, addr, closed, 1), storeurl.Options{CACert: c.CA, Cert: c.Client, Key: c.ClientKey}, []string{"refused"}},
		{"port 99999", strings.Replace(url, addr, "127.0.0.1:99999", 1), storeurl.Options{}, []string{"1..65535"}},
	}
	const timeout = 4 * time.Second
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.DialTimeout = timeout
			start := time.Now()
			o, err := storeurl.Open(context.Background(), tc.url, tc.opts)
			took := time.Since(start)
			if err == nil {
				o.Close()
				t.Fatalf("Open %s succeeded", tc.url)
			}
			t.Logf("%s: after %v: %v", scheme, took.Round(time.Millisecond), err)
			msg := err.Error()
			where := addr
			if !strings.Contains(tc.url, addr) {
				where = strings.TrimPrefix(tc.url, scheme+"://")
				where = where[:strings.Index(where, "/")]
			}
			if !strings.Contains(msg, where) {
				t.Errorf("the error does not name the endpoint %s", where)
			}
			for _, w := range tc.want {
				if !containsAny(strings.ToLower(msg), strings.Split(w, "|")) {
					t.Errorf("the error does not say %q", w)
				}
			}
			if took >= timeout {
				t.Errorf("Open took %v, the whole dial timeout: want the failure at first contact", took)
			}
		})
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// zkSessionError: the adapter itself (without storeurl's probe) says why
// no session could be made: here, a server certificate from an unknown
// authority.
func zkSessionError(t *testing.T, addr string, certs *stores.Certs) {
	tc := certs.ClientTLS(t)
	tc.RootCAs = x509.NewCertPool()
	s, err := zookeeper.New([]string{addr}, zookeeper.Options{TickTime: stores.ZooKeeperTLSTick, TLS: tc,
		ConnOptions: []func(*zk.Conn){zk.WithLogInfo(false)}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ss, err := driver.Of(s).NewSession(backendtest.Context(t, 10*time.Second), 2*stores.ZooKeeperTLSTick)
	if err == nil {
		ss.Close(context.Background())
		t.Fatal("NewSession with a CA that did not sign the server's certificate succeeded")
	}
	var ua x509.UnknownAuthorityError
	if !errors.Is(err, backends.ErrTLS) || !errors.As(err, &ua) {
		t.Fatalf("NewSession: %v, want ErrTLS wrapping the certificate failure", err)
	}
}

// refusedTLS: Stores built in Go, without storeurl's first-contact probe,
// whose TLS handshakes fail on a certificate: the client trusts a CA that
// did not sign the server's certificate (WrongCA), or presents no
// certificate to a server that requires one (NoClientCert). Neither cures
// itself: Campaign returns well before its context ends, with an error
// wrapping backends.ErrTLS that names the TLS cause, and for WrongCA the
// x509 error, in its text and, where the client library keeps the error
// (Consul, ZooKeeper; gRPC carries etcd's as text), in its chain.
func refusedTLS(t *testing.T, certs *stores.Certs, ttl time.Duration, newStore func(*tls.Config) *backends.Store) {
	t.Run("WrongCA", func(t *testing.T) {
		tc := stores.NewCerts(t).ClientTLS(t) // another PKI: its CA signed nothing the server has
		err := campaignRefused(t, newStore(tc), ttl)
		var ua x509.UnknownAuthorityError
		if !errors.As(err, &ua) && !strings.Contains(err.Error(), "x509: certificate signed by unknown authority") {
			t.Errorf("Campaign: %v, want the x509 cause (unknown authority)", err)
		}
	})
	t.Run("NoClientCert", func(t *testing.T) {
		tc := certs.ClientTLS(t)
		tc.Certificates = nil
		err := campaignRefused(t, newStore(tc), ttl)
		if !strings.Contains(err.Error(), "remote error: tls: ") {
			t.Errorf("Campaign: %v, want the server's TLS alert", err)
		}
	})
}

// campaignRefused campaigns on s, whose TLS handshakes fail on a
// certificate, and returns Campaign's error after checking that it came
// well within ctx and wraps backends.ErrTLS.
func campaignRefused(t *testing.T, s *backends.Store, ttl time.Duration) error {
	e, err := lease.New(s, lease.Options{TTL: ttl, Identity: "refused"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	const ctxTimeout, bound = 60 * time.Second, 15 * time.Second
	ctx := backendtest.Context(t, ctxTimeout)
	start := time.Now()
	l, err := e.Campaign(ctx, "refused")
	took := time.Since(start)
	t.Logf("Campaign after %v: %v", took.Round(time.Millisecond), err)
	if err == nil {
		l.Resign(context.Background())
		t.Fatal("Campaign won over a TLS handshake that should fail")
	}
	if took > bound {
		t.Errorf("Campaign took %v of its %v context: want the certificate failure within %v", took, ctxTimeout, bound)
	}
	if !errors.Is(err, backends.ErrTLS) {
		t.Errorf("Campaign: %v, want backends.ErrTLS", err)
	}
	return err
}

// closedPort returns a loopback address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
