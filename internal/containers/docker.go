package containers

import (
	"context"
	"net"
	"strings"

	mobycontainer "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Ping reports whether a Docker engine answers, found as testcontainers-go
// finds it (its properties file, DOCKER_HOST, the Docker context, the
// default sockets).
func Ping(ctx context.Context) error {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	_, err = cli.Ping(ctx, client.PingOptions{})
	return err
}

// HasImage reports whether the engine holds image.
func HasImage(ctx context.Context, image string) bool {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return false
	}
	defer cli.Close()
	_, err = cli.ImageInspect(ctx, image)
	return err == nil
}

// Options configure the starters.
type Options struct {
	// Image is the image to run. Default Image(kind).
	Image string
	// Bridge makes Etcd (1 node), ZooKeeper and Consul (1 node) return the
	// container's address on its Docker network instead of a port
	// published on the Docker host (see integration/stores.Bridge).
	// Default false.
	Bridge bool
	// EtcdArgs are appended to each etcd member's command line, such as
	// "--auth-token-ttl=5". Default none.
	EtcdArgs []string
}

func (o Options) image(kind string) string {
	if o.Image != "" {
		return o.Image
	}
	return Image(kind)
}

// Endpoint returns the address at which a test reaches port of c: the
// port published on the Docker host, or with bridge the container's own
// address.
func Endpoint(ctx context.Context, c testcontainers.Container, port string, bridge bool) (string, error) {
	if !bridge {
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
// project's engine that layer is fuse-overlayfs, where an fsync that takes
// 0.1 ms on the host's ext4 often stalls for 100 ms or more, and those
// stalls made the benchmarks' tails (and timing-bound tests) measure the
// storage driver. A stopped or killed container keeps its volumes; Docker
// removes them with the container (testcontainers removes volumes on
// Terminate).
func DataVolumes(dirs ...string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithHostConfigModifier(func(hc *mobycontainer.HostConfig) {
		for _, d := range dirs {
			hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeVolume, Target: d})
		}
	})
}
