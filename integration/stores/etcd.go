package stores

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

// etcdDataDir is where the etcd image keeps its data: the image's working
// directory, where the members' default data dirs (<name>.etcd) go.
const etcdDataDir = "/var/lib/etcd"

// Etcd starts an etcd cluster of n members (1 or 3) and returns the
// members' client endpoints once the cluster serves a linearizable read.
func Etcd(t testing.TB, n int) []string {
	t.Helper()
	return EtcdWith(t, n)
}

// EtcdWith is Etcd with args appended to each member's command line, such
// as "--auth-token-ttl=5".
func EtcdWith(t testing.TB, n int, args ...string) []string {
	t.Helper()
	Require(t, EtcdImage)
	ctx := startContext(t)
	opts := []testcontainers.ContainerCustomizer{DataVolumes(etcdDataDir)}
	if len(args) > 0 {
		opts = append(opts, tcetcd.WithAdditionalArgs(args...))
	}
	if n > 1 {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("etcd-%d", i+1)
		}
		opts = append(opts, tcetcd.WithNodes(names[0], names[1], names[2:]...))
	}
	c, err := tcetcd.Run(ctx, EtcdImage, opts...)
	testcontainers.CleanupContainer(t, c, testcontainers.StopTimeout(time.Second))
	if err != nil {
		t.Fatalf("start etcd x%d: %v", n, err)
	}
	eps, err := c.ClientEndpoints(ctx)
	if Bridge && n == 1 && err == nil {
		ep, e := Endpoint(ctx, c, "2379/tcp")
		eps, err = []string{"http://" + ep}, e
	}
	if err != nil {
		t.Fatalf("etcd endpoints: %v", err)
	}
	if err := etcdReady(ctx, eps); err != nil {
		t.Fatalf("etcd x%d not ready: %v", n, err)
	}
	return eps
}

// etcdReady waits until every member answers a linearizable read; the
// client retries an unavailable cluster by itself within ctx.
func etcdReady(ctx context.Context, eps []string) error {
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
