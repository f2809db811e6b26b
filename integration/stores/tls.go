package stores

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/internal/containers"
)

// tlsDir is where the TLS starters copy the server's PEM files in the
// container.
const tlsDir = "/tls"

// tlsFiles copies the CA and the server's certificate and key into the
// container: /tls/ca.pem, /tls/server.pem, /tls/server-key.pem and
// /tls/server-bundle.pem (key and certificate in one file).
func tlsFiles(c *Certs) testcontainers.CustomizeRequestOption {
	file := func(host, name string) testcontainers.ContainerFile {
		return testcontainers.ContainerFile{HostFilePath: host, ContainerFilePath: tlsDir + "/" + name, FileMode: 0o644}
	}
	return testcontainers.WithFiles(file(c.CA, "ca.pem"), file(c.Server, "server.pem"),
		file(c.ServerKey, "server-key.pem"), file(c.ServerBundle, "server-bundle.pem"))
}

// EtcdTLS starts one etcd member that serves clients only over TLS and
// requires a client certificate the test CA signed (--client-cert-auth),
// and returns its client address (127.0.0.1:port, for https://) once it
// serves a linearizable read to c's client.
func EtcdTLS(t testing.TB, c *Certs) string {
	t.Helper()
	Require(t, EtcdImage)
	ctx := startContext(t)
	cmd := []string{"etcd", "--name=default", "--data-dir=" + containers.EtcdDataDir + "/default.etcd",
		"--listen-client-urls=https://0.0.0.0:2379", "--advertise-client-urls=https://127.0.0.1:2379",
		"--client-cert-auth", "--trusted-ca-file=" + tlsDir + "/ca.pem",
		"--cert-file=" + tlsDir + "/server.pem", "--key-file=" + tlsDir + "/server-key.pem"}
	ctr, err := testcontainers.Run(ctx, EtcdImage, testcontainers.WithCmd(cmd...),
		testcontainers.WithExposedPorts("2379/tcp"), tlsFiles(c), DataVolumes(containers.EtcdDataDir))
	testcontainers.CleanupContainer(t, ctr, testcontainers.StopTimeout(time.Second))
	if err != nil {
		t.Fatalf("start etcd with TLS: %v", err)
	}
	addr, err := ctr.PortEndpoint(ctx, "2379/tcp", "")
	if err != nil {
		t.Fatal(err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"https://" + addr}, TLS: c.ClientTLS(t),
		DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("etcd TLS client: %v", err)
	}
	defer cli.Close()
	if _, err := cli.Get(ctx, "leasehold-ready"); err != nil {
		t.Fatalf("etcd with TLS at %s not ready: %v", addr, err)
	}
	return addr
}

// ConsulTLS starts a Consul dev agent whose HTTP API is served only over
// HTTPS (ports { http = -1, https = 8501 }; no gRPC port, which a dev
// agent with TLS would otherwise refuse to serve in plaintext) and requires a client
// certificate the test CA signed (verify_incoming), and returns its HTTPS
// address (127.0.0.1:port) once it has a leader and its node.
func ConsulTLS(t testing.TB, c *Certs) string {
	t.Helper()
	Require(t, ConsulImage)
	ctx := startContext(t)
	tlsHCL := fmt.Sprintf(`tls { defaults { ca_file = "%[1]s/ca.pem" cert_file = "%[1]s/server.pem" `+
		`key_file = "%[1]s/server-key.pem" verify_incoming = true } }`, tlsDir)
	cmd := append([]string{"agent", "-dev", "-client", "0.0.0.0", "-hcl", tlsHCL,
		"-hcl", "ports { http = -1 https = 8501 grpc = -1 grpc_tls = -1 }"}, containers.ConsulHCL...)
	ctr, err := testcontainers.Run(ctx, ConsulImage, testcontainers.WithCmd(cmd...),
		testcontainers.WithExposedPorts("8501/tcp"), tlsFiles(c))
	testcontainers.CleanupContainer(t, ctr, testcontainers.StopTimeout(time.Second))
	if err != nil {
		t.Fatalf("start consul with TLS: %v", err)
	}
	addr, err := ctr.PortEndpoint(ctx, "8501/tcp", "")
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: c.ClientTLS(t)}}
	defer hc.CloseIdleConnections()
	if err := waitFor(ctx, func() error { return consulServes(ctx, hc, "https://"+addr) }); err != nil {
		t.Fatalf("consul with TLS at %s: no leader: %v", addr, err)
	}
	return addr
}

// consulServes checks that the agent at base has a leader and its node in
// the catalog.
func consulServes(ctx context.Context, hc *http.Client, base string) error {
	var leader string
	var nodes []map[string]any
	if err := containers.GetJSONWith(ctx, hc, base+"/v1/status/leader", &leader); err != nil || leader == "" {
		return fmt.Errorf("leader %q: %v", leader, err)
	}
	if err := containers.GetJSONWith(ctx, hc, base+"/v1/catalog/nodes", &nodes); err != nil || len(nodes) == 0 {
		return fmt.Errorf("%d nodes: %v", len(nodes), err)
	}
	return nil
}

// ZooKeeperTLSConfig are the zoo.cfg lines (ZOO_CFG_EXTRA) of a server
// with a TLS client port, 2281, that requires a client certificate: the
// Netty connection factory, and PEM key and trust stores. ZooKeeper 3.8
// turns zoo.cfg keys it does not know into zookeeper.* system properties,
// so these work with both the official image and the Debian-built one.
var ZooKeeperTLSConfig = []string{
	"secureClientPort=2281",
	"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
	"ssl.keyStore.location=" + tlsDir + "/server-bundle.pem", "ssl.keyStore.type=PEM",
	"ssl.trustStore.location=" + tlsDir + "/ca.pem", "ssl.trustStore.type=PEM",
	"ssl.clientAuth=need",
}

// ZooKeeperTLSTick is the tickTime of the server ZooKeeperTLS starts:
// sessions last 4 s to 40 s. The conformance suite opens its sessions at
// the smallest TTL and does not renew them; through the zktest harness each
// session's connection makes two TLS handshakes (to the proxy, and from it
// to the server). With ZooKeeperTick (a 2 s TTL in the suite) one
// race-enabled run on a loaded machine failed CreateRace, whose eight
// unrenewed sessions took 2.9 s to set up, longer than their TTL.
const ZooKeeperTLSTick = 2 * time.Second

// ZooKeeperTLS starts one ZooKeeper server with a TLS client port
// (ZooKeeperTLSConfig) and returns that port's address (127.0.0.1:port).
// The plain client port stays open inside the container for the readiness
// check (the srvr command, which the TLS port does not answer) and is
// published only for it.
func ZooKeeperTLS(t testing.TB, c *Certs) string {
	t.Helper()
	Require(t, ZooKeeperImage)
	ctx := startContext(t)
	env := map[string]string{"ZOO_TICK_TIME": fmt.Sprint(ZooKeeperTLSTick.Milliseconds()),
		"ZOO_4LW_COMMANDS_WHITELIST": "srvr,ruok", "ZOO_ADMINSERVER_ENABLED": "false",
		"ZOO_CFG_EXTRA": strings.Join(ZooKeeperTLSConfig, " ")}
	ctr, err := testcontainers.Run(ctx, ZooKeeperImage, testcontainers.WithEnv(env),
		testcontainers.WithExposedPorts("2181/tcp", "2281/tcp"), tlsFiles(c), DataVolumes(ZooKeeperDataDirs...))
	testcontainers.CleanupContainer(t, ctr, testcontainers.StopTimeout(time.Second))
	if err != nil {
		t.Fatalf("start zookeeper with TLS: %v", err)
	}
	plain, err := ctr.PortEndpoint(ctx, "2181/tcp", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := containers.ZooKeeperReady(ctx, plain); err != nil {
		t.Fatalf("zookeeper with TLS not ready: %v", err)
	}
	addr, err := ctr.PortEndpoint(ctx, "2281/tcp", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, func() error { return tlsAnswers(ctx, addr, c.ClientTLS(t)) }); err != nil {
		t.Fatalf("zookeeper TLS port %s: no TLS handshake: %v", addr, err)
	}
	return addr
}

// tlsAnswers makes a TLS handshake with addr.
func tlsAnswers(ctx context.Context, addr string, tc *tls.Config) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := (&tls.Dialer{Config: tc}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return conn.Close()
}

// waitFor polls check every 100 ms until it succeeds or ctx ends; the
// error then names check's last failure.
func waitFor(ctx context.Context, check func() error) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}
