package leaseholdtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/internal/containers"
)

// startTimeout bounds starting a store and waiting for it to serve.
const startTimeout = 3 * time.Minute

// engine is the Docker engine as Container uses it.
type engine interface {
	// Ping reports whether the engine answers.
	Ping(ctx context.Context) error
	// HasImage reports whether the engine holds image.
	HasImage(ctx context.Context, image string) bool
	// Start starts n servers of kind from image for t and returns their
	// client addresses once they serve.
	Start(ctx context.Context, t testing.TB, kind, image string, n int) ([]string, error)
}

// dockerEngine is the engine testcontainers-go finds.
type dockerEngine struct{}

func (dockerEngine) Ping(ctx context.Context) error { return containers.Ping(ctx) }

func (dockerEngine) HasImage(ctx context.Context, image string) bool {
	return containers.HasImage(ctx, image)
}

func (dockerEngine) Start(ctx context.Context, t testing.TB, kind, image string, n int) ([]string, error) {
	o := containers.Options{Image: image}
	switch kind {
	case "etcd":
		return containers.Etcd(ctx, t, n, o)
	case "zookeeper":
		return containers.ZooKeeper(ctx, t, n, o)
	default:
		return containers.Consul(ctx, t, n, o)
	}
}

// startStore starts n servers of kind from image on e and returns their
// addresses. It asks for nothing but the engine: no engine, or an image
// that is neither held nor pulled, skips the test (fails it under CI=true);
// any other failure fails it.
func startStore(t testing.TB, e engine, kind, image string, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	t.Cleanup(cancel)
	if err := e.Ping(ctx); err != nil {
		unavailable(t, containerMessage(kind, image, fmt.Errorf("no Docker engine answers: %w", err)))
	}
	addrs, err := e.Start(ctx, t, kind, image, n)
	if err == nil {
		return addrs
	}
	if !hasImage(e, image) {
		unavailable(t, containerMessage(kind, image, fmt.Errorf("image %s is not there and was not pulled: %w", image, err)))
	}
	t.Fatal(containerMessage(kind, image, err))
	return nil
}

// hasImage asks e for image within a context of its own: the start's may
// have run out.
func hasImage(e engine, image string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return e.HasImage(ctx, image)
}

// containerMessage says why a store of kind could not run from image, and
// what a user can do about it.
func containerMessage(kind, image string, err error) string {
	if err == nil {
		err = errors.New("unknown error")
	}
	return fmt.Sprintf("leaseholdtest: cannot run %s in Docker: %v\n"+
		"To run this test:\n"+
		"  - run a Docker engine; testcontainers-go finds it as the docker CLI does (DOCKER_HOST, the docker context, /var/run/docker.sock);\n"+
		"  - have the image: `docker pull %s`, or set %s to a %s image you have;\n"+
		"  - if the engine's published ports are not at the host testcontainers-go detects (tests inside a container, a remote engine), "+
		"set TESTCONTAINERS_HOST_OVERRIDE to the host where they are (127.0.0.1 for an engine on this machine).",
		kind, err, image, containers.ImageVar(kind), kind)
}

// unavailable stops a test that cannot run here: it skips it, or under
// CI=true fails it, so that a CI without Docker does not pass on skipped
// tests.
func unavailable(t testing.TB, msg string) {
	t.Helper()
	if underCI() {
		t.Fatal(msg + "\n(CI=true: a test that cannot run fails instead of skipping.)")
	}
	t.Skip(msg)
}

// underCI reports whether CI=true.
func underCI() bool { return strings.EqualFold(os.Getenv("CI"), "true") }
