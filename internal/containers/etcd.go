package containers

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcetcd "github.com/testcontainers/testcontainers-go/modules/etcd"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// EtcdDataDir is where the etcd image keeps its data: the image's working
// directory, where the members' default data dirs (<name>.etcd) go.
const EtcdDataDir = "/var/lib/etcd"

// Etcd starts an etcd cluster of n members (1 or 3) for t and returns the
// members' client endpoints (http://host:port) once the cluster serves a
// linearizable read, within ctx.
func Etcd(ctx context.Context, t testing.TB, n int, o Options) ([]string, error) {
	opts := []testcontainers.ContainerCustomizer{DataVolumes(EtcdDataDir)}
	if len(o.EtcdArgs) > 0 {
		opts = append(opts, tcetcd.WithAdditionalArgs(o.EtcdArgs...))
	}
	if n > 1 {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("etcd-%d", i+1)
		}
		opts = append(opts, tcetcd.WithNodes(names[0], names[1], names[2:]...))
	}
	c, err := tcetcd.Run(ctx, o.image("etcd"), opts...)
	testcontainers.CleanupContainer(t, c, testcontainers.StopTimeout(time.Second))
	if err != nil {
		return nil, fmt.Errorf("start etcd x%d: %w", n, err)
	}
	eps, err := c.ClientEndpoints(ctx)
	if o.Bridge && n == 1 && err == nil {
		ep, e := Endpoint(ctx, c, "2379/tcp", true)
		eps, err = []string{"http://" + ep}, e
	}
	if err != nil {
		return nil, fmt.Errorf("etcd endpoints: %w", err)
	}
	if err := EtcdReady(ctx, eps); err != nil {
		return nil, fmt.Errorf("etcd x%d not ready: %w", n, err)
	}
	return eps, nil
}

// EtcdReady waits until every member answers a linearizable read; the
// client retries an unavailable cluster by itself within ctx.
func EtcdReady(ctx context.Context, eps []string) error {
	for _, ep := range eps {
		c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			return err
		}
		_, err = c.Get(ctx, "leasehold-ready")
		c.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", ep, err)
		}
	}
	return nil
}
