package containers

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
)

// ZooKeeperTick is the tickTime the containers run with: sessions may then
// last from 2 to 20 ticks (400 ms to 4 s).
const ZooKeeperTick = 200 * time.Millisecond

// ZooKeeperDataDirs are the image's snapshot and transaction log
// directories (ZOO_DATA_DIR, ZOO_DATA_LOG_DIR; volumes in the official
// image).
var ZooKeeperDataDirs = []string{"/data", "/datalog"}

// ZooKeeper starts a ZooKeeper ensemble of n servers (1 or 3) for t and
// returns their client addresses (host:port) once every server serves,
// within ctx.
func ZooKeeper(ctx context.Context, t testing.TB, n int, o Options) ([]string, error) {
	var nw *testcontainers.DockerNetwork
	if n > 1 {
		var err error
		if nw, err = network.New(ctx); err != nil {
			return nil, fmt.Errorf("zookeeper network: %w", err)
		}
		testcontainers.CleanupNetwork(t, nw)
	}
	var servers []string
	for i := 1; i <= n; i++ {
		servers = append(servers, fmt.Sprintf("server.%d=zk%d:2888:3888;2181", i, i))
	}
	addrs := make([]string, n)
	for i := 1; i <= n; i++ {
		env := map[string]string{"ZOO_MY_ID": fmt.Sprint(i), "ZOO_TICK_TIME": fmt.Sprint(ZooKeeperTick.Milliseconds()),
			"ZOO_4LW_COMMANDS_WHITELIST": "srvr,ruok,mntr,conf", "ZOO_ADMINSERVER_ENABLED": "false",
			"ZOO_INIT_LIMIT": "10", "ZOO_SYNC_LIMIT": "5"}
		opts := []testcontainers.ContainerCustomizer{testcontainers.WithExposedPorts("2181/tcp"), testcontainers.WithEnv(env),
			DataVolumes(ZooKeeperDataDirs...)}
		if nw != nil {
			env["ZOO_SERVERS"] = strings.Join(servers, " ")
			opts = append(opts, network.WithNetwork([]string{fmt.Sprintf("zk%d", i)}, nw))
		}
		c, err := testcontainers.Run(ctx, o.image("zookeeper"), opts...)
		testcontainers.CleanupContainer(t, c, testcontainers.StopTimeout(time.Second))
		if err != nil {
			return nil, fmt.Errorf("start zookeeper %d of %d: %w", i, n, err)
		}
		if addrs[i-1], err = Endpoint(ctx, c, "2181/tcp", o.Bridge); err != nil {
			return nil, fmt.Errorf("zookeeper address: %w", err)
		}
	}
	for _, a := range addrs {
		if err := ZooKeeperReady(ctx, a); err != nil {
			return nil, fmt.Errorf("zookeeper x%d not ready: %w", n, err)
		}
	}
	return addrs, nil
}

// ZooKeeperReady waits until the server at addr reports a Mode
// (standalone, leader or follower) to the srvr command: it then serves
// clients. `ruok` answers before that.
func ZooKeeperReady(ctx context.Context, addr string) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		mode, err := ZooKeeperMode(ctx, addr)
		if err == nil && mode != "" {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last: %v)", addr, ctx.Err(), last)
		case <-tick.C:
		}
	}
}

// ZooKeeperMode asks the server at addr for its mode with the srvr
// command.
func ZooKeeperMode(ctx context.Context, addr string) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := conn.Write([]byte("srvr")); err != nil {
		return "", err
	}
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		if mode, ok := strings.CutPrefix(sc.Text(), "Mode: "); ok {
			return mode, nil
		}
	}
	return "", sc.Err()
}
