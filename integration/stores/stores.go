// Package stores starts real etcd, ZooKeeper and Consul servers in
// containers, as single nodes or 3-node clusters, for the integration,
// fault and benchmark suites. Etcd, ZooKeeper and Consul return the client
// addresses; EtcdCluster, ZooKeeperCluster and ConsulCluster return a
// Cluster whose nodes a test can kill, stop, restart and cut from their
// network, and whose store leader it can find (the store faults). It uses testcontainers-go and terminates every
// container and network it starts when the test ends (the reaper image is
// not used). The single-node and cluster starters it shares with
// leaseholdtest are in internal/containers; this package adds the suites'
// policy (Require) and the faults.
//
// EtcdTLS, ConsulTLS and ZooKeeperTLS start one server that speaks only
// mutual TLS to clients, with a test PKI that NewCerts generates.
//
// Image names come from LEASEHOLD_ETCD_IMAGE, LEASEHOLD_ZOOKEEPER_IMAGE and
// LEASEHOLD_CONSUL_IMAGE and default to the official images; `make images`
// builds them locally where no registry is reachable. Set
// TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 (../shared/testcontainers.env) so
// that tests talk to published ports on loopback.
package stores

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/leasehold/leasehold/internal/containers"
)

// Image names: the values of LEASEHOLD_ETCD_IMAGE, LEASEHOLD_ZOOKEEPER_IMAGE
// and LEASEHOLD_CONSUL_IMAGE when the tests start, or the official images.
var (
	EtcdImage      = containers.Image("etcd")
	ZooKeeperImage = containers.Image("zookeeper")
	ConsulImage    = containers.Image("consul")
)

// startTimeout bounds starting a cluster and waiting for it to serve.
const startTimeout = 3 * time.Minute

// Require checks that containers can run here and that image is present,
// and stops the test if not: under CI=true it fails, elsewhere it skips
// with a message that says how to enable the suite.
func Require(t testing.TB, image string) {
	t.Helper()
	if os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") == "" {
		stop(t, "TESTCONTAINERS_HOST_OVERRIDE is unset: source ../shared/testcontainers.env (test traffic must stay on loopback)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := containers.Ping(ctx); err != nil {
		stop(t, "no Docker engine answers: "+err.Error())
	}
	if !containers.HasImage(ctx, image) {
		stop(t, "image "+image+" is missing: run `make images` (it builds or pulls the store images)")
	}
}

func stop(t testing.TB, why string) {
	t.Helper()
	if UnderCI() {
		t.Fatalf("integration suite cannot run under CI: %s", why)
	}
	t.Skipf("integration suite skipped: %s", why)
}

// UnderCI reports whether the tests run under CI (CI=true), where a suite
// or fault that cannot run is a failure, not a skip.
func UnderCI() bool { return strings.EqualFold(os.Getenv("CI"), "true") }

// startContext returns a context bounding a cluster's start.
func startContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	t.Cleanup(cancel)
	return ctx
}

// Bridge, when set before a store is started, makes Etcd (1 node),
// ZooKeeper and Consul (1 node) return the container's address on its Docker
// network (container IP and the store's own port) instead of a port
// published on loopback. Traffic then skips Docker's userland proxy,
// which relays every connection through two open files of its own (this
// engine allows it 20,000) and adds a hop to every round trip: the
// benchmarks, which hold thousands of connections and time round trips,
// set it. The address is that of the project's own container.
var Bridge bool

// Endpoint returns the address at which a test reaches port of c: the
// published loopback port, or with Bridge the container's own address.
func Endpoint(ctx context.Context, c testcontainers.Container, port string) (string, error) {
	return containers.Endpoint(ctx, c, port, Bridge)
}

// DataVolumes mounts a fresh anonymous Docker volume at each of dirs, the
// store's data directories (see containers.DataVolumes: the store's log
// then lives on the host's file system, not in the container's writable
// layer, whose fsyncs stall on this engine).
func DataVolumes(dirs ...string) testcontainers.CustomizeRequestOption {
	return containers.DataVolumes(dirs...)
}

// ZooKeeperTick is the tickTime the containers run with: sessions may then
// last from 2 to 20 ticks (400 ms to 4 s).
const ZooKeeperTick = containers.ZooKeeperTick

// ZooKeeperDataDirs are the image's snapshot and transaction log
// directories (ZOO_DATA_DIR, ZOO_DATA_LOG_DIR; volumes in the official
// image).
var ZooKeeperDataDirs = containers.ZooKeeperDataDirs

// options are the starters' options: the image of kind, and Bridge.
func options(image string) containers.Options {
	return containers.Options{Image: image, Bridge: Bridge}
}
