package env

import (
	"context"
	"testing"
	"time"

	"github.com/leasehold/leasehold/integration/stores"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// StartZooKeeper starts a standalone ZooKeeper with the tickTime of
// integration/stores (200 ms: sessions of 400 ms to 4 s) but no limit on
// connections per client address (the herd opens one session, so one
// connection, per candidate), and returns its address once it serves.
func StartZooKeeper(t testing.TB) []string {
	t.Helper()
	stores.Require(t, stores.ZooKeeperImage)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := map[string]string{"ZOO_MY_ID": "1", "ZOO_TICK_TIME": "200", "ZOO_MAX_CLIENT_CNXNS": "0",
		"ZOO_4LW_COMMANDS_WHITELIST": "srvr,ruok,mntr,conf", "ZOO_ADMINSERVER_ENABLED": "false"}
	c, err := testcontainers.Run(ctx, stores.ZooKeeperImage, testcontainers.WithExposedPorts("2181/tcp"),
		testcontainers.WithEnv(env), stores.DataVolumes(stores.ZooKeeperDataDirs...), testcontainers.WithWaitStrategy(wait.ForListeningPort("2181/tcp")))
	testcontainers.CleanupContainer(t, c, testcontainers.StopTimeout(time.Second))
	if err != nil {
		t.Fatalf("start zookeeper: %v", err)
	}
	addr, err := stores.Endpoint(ctx, c, "2181/tcp")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if m, err := fourLetter(ctx, addr, "mntr"); err == nil && m["zk_packets_received"] >= 0 {
			if _, ok := m["zk_packets_sent"]; ok {
				return []string{addr}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("zookeeper %s not ready", addr)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
