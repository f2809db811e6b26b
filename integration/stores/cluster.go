package stores

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	mobynet "github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	mobycontainer "github.com/moby/moby/api/types/container"

	"github.com/leasehold/leasehold/internal/containers"
)

// Cluster is a store cluster whose nodes a test can kill, stop, restart
// and cut from their network (the store-side faults of the fault suite).
// Every node publishes its client port on a fixed loopback port, so that
// its address (Addrs) stays the same across restarts.
type Cluster struct {
	Kind  string // etcd, zookeeper or consul
	Nodes []*Node
	nw    *testcontainers.DockerNetwork
	cli   *client.Client
}

// Node is one store node of a Cluster.
type Node struct {
	Name string // its name (and DNS alias) on the cluster network
	Addr string // 127.0.0.1:port of its client port
	c    testcontainers.Container
}

// Addrs returns the nodes' client addresses (host:port, no scheme).
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Addr
	}
	return out
}

// EtcdCluster starts an etcd cluster of n members, each node controllable.
func EtcdCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	Require(t, EtcdImage)
	var peers []string
	for i := 1; i <= n; i++ {
		peers = append(peers, fmt.Sprintf("etcd-%d=http://etcd-%d:2380", i, i))
	}
	return newCluster(t, "etcd", n, "2379/tcp", func(i int, name string) []testcontainers.ContainerCustomizer {
		return []testcontainers.ContainerCustomizer{testcontainers.WithCmd("etcd", "--name="+name,
			"--initial-advertise-peer-urls=http://"+name+":2380", "--advertise-client-urls=http://"+name+":2379",
			"--listen-peer-urls=http://0.0.0.0:2380", "--listen-client-urls=http://0.0.0.0:2379",
			"--initial-cluster-state=new", "--initial-cluster="+strings.Join(peers, ","), "--data-dir="+containers.EtcdDataDir),
			DataVolumes(containers.EtcdDataDir)}
	})
}

// ZooKeeperCluster starts a ZooKeeper ensemble of n servers, each node
// controllable.
func ZooKeeperCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	Require(t, ZooKeeperImage)
	var servers []string
	for i := 1; i <= n; i++ {
		servers = append(servers, fmt.Sprintf("server.%d=zk-%d:2888:3888;2181", i, i))
	}
	return newCluster(t, "zookeeper", n, "2181/tcp", func(i int, _ string) []testcontainers.ContainerCustomizer {
		env := map[string]string{"ZOO_MY_ID": fmt.Sprint(i), "ZOO_TICK_TIME": fmt.Sprint(ZooKeeperTick.Milliseconds()),
			"ZOO_4LW_COMMANDS_WHITELIST": "srvr,ruok,mntr,conf", "ZOO_ADMINSERVER_ENABLED": "false",
			"ZOO_INIT_LIMIT": "10", "ZOO_SYNC_LIMIT": "5", "ZOO_SERVERS": strings.Join(servers, " ")}
		return []testcontainers.ContainerCustomizer{testcontainers.WithEnv(env), DataVolumes(ZooKeeperDataDirs...)}
	})
}

// ConsulCluster starts n Consul servers bootstrapping together, each node
// controllable.
func ConsulCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	Require(t, ConsulImage)
	return newCluster(t, "consul", n, "8500/tcp", func(i int, name string) []testcontainers.ContainerCustomizer {
		cmd := []string{"agent", "-server", fmt.Sprintf("-bootstrap-expect=%d", n), "-node=" + name,
			"-client=0.0.0.0", `-bind={{ GetInterfaceIP "eth0" }}`, "-data-dir=" + containers.ConsulDataDir}
		for j := 1; j <= n; j++ {
			if j != i {
				cmd = append(cmd, fmt.Sprintf("-retry-join=consul-%d", j))
			}
		}
		return []testcontainers.ContainerCustomizer{testcontainers.WithCmd(append(cmd, containers.ConsulHCL...)...), DataVolumes(containers.ConsulDataDir)}
	})
}

func newCluster(t testing.TB, kind string, n int, port string, opts func(i int, name string) []testcontainers.ContainerCustomizer) *Cluster {
	ctx := startContext(t)
	nw, err := network.New(ctx)
	if err != nil {
		t.Fatalf("%s network: %v", kind, err)
	}
	testcontainers.CleanupNetwork(t, nw)
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	cl := &Cluster{Kind: kind, nw: nw, cli: cli.Client}
	img := map[string]string{"etcd": EtcdImage, "zookeeper": ZooKeeperImage, "consul": ConsulImage}[kind]
	prefix := map[string]string{"etcd": "etcd", "zookeeper": "zk", "consul": "consul"}[kind]
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		hostPort, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		p := mobynet.MustParsePort(port)
		all := append(opts(i, name), testcontainers.WithExposedPorts(port), network.WithNetwork([]string{name}, nw),
			testcontainers.WithHostConfigModifier(func(hc *mobycontainer.HostConfig) {
				hc.PortBindings = mobynet.PortMap{p: {{HostIP: netip.MustParseAddr("127.0.0.1"), HostPort: strconv.Itoa(hostPort)}}}
			}))
		c, err := testcontainers.Run(ctx, img, all...)
		testcontainers.CleanupContainer(t, c, testcontainers.StopTimeout(time.Second))
		if err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		cl.Nodes = append(cl.Nodes, &Node{Name: name, Addr: fmt.Sprintf("127.0.0.1:%d", hostPort), c: c})
	}
	if err := cl.Ready(ctx); err != nil {
		t.Fatalf("%s x%d not ready: %v", kind, n, err)
	}
	return cl
}

// freePort returns a loopback port free at the time of the call.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Ready waits until every node serves (and, for Consul, sees a leader and
// every peer), within ctx.
func (c *Cluster) Ready(ctx context.Context) error {
	switch c.Kind {
	case "etcd":
		var eps []string
		for _, a := range c.Addrs() {
			eps = append(eps, "http://"+a)
		}
		return containers.EtcdReady(ctx, eps)
	case "zookeeper":
		for _, a := range c.Addrs() {
			if err := containers.ZooKeeperReady(ctx, a); err != nil {
				return err
			}
		}
		return nil
	case "consul":
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for _, a := range c.Addrs() {
			for !containers.ConsulHasQuorum(ctx, a, len(c.Nodes)) {
				select {
				case <-ctx.Done():
					return fmt.Errorf("consul at %s: no leader with %d peers: %w", a, len(c.Nodes), ctx.Err())
				case <-tick.C:
				}
			}
		}
		return nil
	}
	return fmt.Errorf("unknown store kind %q", c.Kind)
}

// Kill SIGKILLs node i's container (docker kill).
func (c *Cluster) Kill(ctx context.Context, i int) error {
	_, err := c.cli.ContainerKill(ctx, c.Nodes[i].c.GetContainerID(), client.ContainerKillOptions{Signal: "KILL"})
	return err
}

// Stop stops node i's container (SIGTERM, then SIGKILL after timeout).
func (c *Cluster) Stop(ctx context.Context, i int, timeout time.Duration) error {
	return c.Nodes[i].c.Stop(ctx, &timeout)
}

// Start starts node i's stopped or killed container again; it keeps its
// data and its address. It does not wait for the node to serve.
func (c *Cluster) Start(ctx context.Context, i int) error {
	_, err := c.cli.ContainerStart(ctx, c.Nodes[i].c.GetContainerID(), client.ContainerStartOptions{})
	return err
}

// Disconnect cuts node i from the cluster network (docker network
// disconnect): it reaches neither its peers nor, through its published
// port, any client.
func (c *Cluster) Disconnect(ctx context.Context, i int) error {
	_, err := c.cli.NetworkDisconnect(ctx, c.nw.ID, client.NetworkDisconnectOptions{Container: c.Nodes[i].c.GetContainerID(), Force: true})
	return err
}

// Reconnect undoes Disconnect, with the node's name as its alias again.
func (c *Cluster) Reconnect(ctx context.Context, i int) error {
	_, err := c.cli.NetworkConnect(ctx, c.nw.ID, client.NetworkConnectOptions{Container: c.Nodes[i].c.GetContainerID(),
		EndpointConfig: &mobynet.EndpointSettings{Aliases: []string{c.Nodes[i].Name}}})
	return err
}

// ErrNoLeader is returned by Leader when no node says it leads.
var ErrNoLeader = errors.New("no store node says it leads")

// Leader returns the index of the node that is the store's own leader
// (etcd raft leader, ZooKeeper leader, Consul raft leader), asking each
// node in turn.
func (c *Cluster) Leader(ctx context.Context) (int, error) {
	for i, n := range c.Nodes {
		ok, err := c.isLeader(ctx, n.Addr)
		if err == nil && ok {
			return i, nil
		}
	}
	return -1, ErrNoLeader
}

func (c *Cluster) isLeader(ctx context.Context, addr string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	switch c.Kind {
	case "etcd":
		cli, err := clientv3.New(clientv3.Config{Endpoints: []string{addr}, DialTimeout: time.Second, Logger: zap.NewNop()})
		if err != nil {
			return false, err
		}
		defer cli.Close()
		st, err := cli.Status(ctx, addr)
		if err != nil {
			return false, err
		}
		return st.Leader != 0 && st.Leader == st.Header.MemberId, nil
	case "zookeeper":
		mode, err := containers.ZooKeeperMode(ctx, addr)
		return mode == "leader", err
	case "consul":
		var self struct {
			Stats struct {
				Consul struct {
					Leader string `json:"leader"`
				} `json:"consul"`
			} `json:"Stats"`
		}
		err := containers.GetJSON(ctx, "http://"+addr+"/v1/agent/self", &self)
		return self.Stats.Consul.Leader == "true", err
	}
	return false, fmt.Errorf("unknown store kind %q", c.Kind)
}
