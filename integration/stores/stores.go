// Package stores starts real etcd, ZooKeeper and Consul servers in
// containers, as single nodes or 3-node clusters, for the integration,
// fault and benchmark suites. Etcd, ZooKeeper and Consul return the client
// addresses; EtcdCluster, ZooKeeperCluster and ConsulCluster return a
// Cluster whose nodes a test can kill, stop, restart and cut from their
// network, and whose store leader it can find (the store faults). It uses testcontainers-go and terminates every
// container and network it starts when the test ends (the reaper image is
// not used).
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
	"net"
	"os"
	"strings"
	"testing"
	"time"

	mobycontainer "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Image names and their defaults.
var (
	EtcdImage      = imageFromEnv("LEASEHOLD_ETCD_IMAGE", "gcr.io/etcd-development/etcd:v3.7.3")
	ZooKeeperImage = imageFromEnv("LEASEHOLD_ZOOKEEPER_IMAGE", "zookeeper:3.8.0")
	ConsulImage    = imageFromEnv("LEASEHOLD_CONSUL_IMAGE", "hashicorp/consul:1.22.7")
)

func imageFromEnv(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

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
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		stop(t, "no Docker engine: "+err.Error())
	}
	defer cli.Close()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		stop(t, "Docker engine does not answer: "+err.Error())
	}
	if _, err := cli.ImageInspect(ctx, image); err != nil {
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
	if !Bridge {
		return c.PortEndpoint(ctx, port, "")
	}
	ip, err := c.ContainerIP(ctx)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(ip, strings.TrimSuffix(port, "/tcp")), nil
}

// DataVolumes mounts a fresh anonymous Docker volume at each of dirs, the
// store's data directories, as the official ZooKeeper and Consul images
// declare and as anyone runs a store in a container: its log then lives on
// the host's file system, not in the container's writable layer. On this
// engine that layer is fuse-overlayfs, where an fsync that takes 0.1 ms on
// the host's ext4 often stalls for 100 ms or more, and those stalls made
// the benchmarks' tails (and timing-bound tests) measure the storage
// driver. A stopped or killed container keeps its volumes; Docker removes
// them with the container (testcontainers removes volumes on Terminate).
func DataVolumes(dirs ...string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithHostConfigModifier(func(hc *mobycontainer.HostConfig) {
		for _, d := range dirs {
			hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeVolume, Target: d})
		}
	})
}
