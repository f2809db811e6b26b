package containers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcconsul "github.com/testcontainers/testcontainers-go/modules/consul"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"
)

// ConsulHCL is the configuration every agent gets: no update check (no
// traffic leaves the machine) and the fast raft timing of
// raft_multiplier = 1. The agents keep their default limits, 200 HTTP
// connections per client among them, as users' agents do, so that the
// suites catch a client that needs more.
var ConsulHCL = []string{"-hcl", "disable_update_check = true", "-hcl", "performance { raft_multiplier = 1 }"}

// ConsulDataDir is the servers' -data-dir (the official image's volume).
// A dev agent keeps its state in memory.
const ConsulDataDir = "/consul/data"

// Consul starts a Consul cluster of n servers (1: a dev agent; 3: three
// servers bootstrapping together) for t and returns the HTTP addresses
// (host:port) of every server once the cluster has a leader and all its
// peers, within ctx.
func Consul(ctx context.Context, t testing.TB, n int, o Options) ([]string, error) {
	if n == 1 {
		c, err := tcconsul.Run(ctx, o.image("consul"), testcontainers.WithCmd(append([]string{"agent", "-dev", "-client", "0.0.0.0"}, ConsulHCL...)...))
		testcontainers.CleanupContainer(t, c, testcontainers.StopTimeout(time.Second))
		if err != nil {
			return nil, fmt.Errorf("start consul: %w", err)
		}
		addr, err := Endpoint(ctx, c, "8500/tcp", o.Bridge)
		if err != nil {
			return nil, err
		}
		return []string{addr}, ConsulReady(ctx, []string{addr}, 1)
	}
	nw, err := network.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("consul network: %w", err)
	}
	testcontainers.CleanupNetwork(t, nw)
	addrs := make([]string, n)
	for i := range n {
		if addrs[i], err = startConsulServer(ctx, t, nw, o.image("consul"), i+1, n); err != nil {
			return nil, err
		}
	}
	return addrs, ConsulReady(ctx, addrs, n)
}

func startConsulServer(ctx context.Context, t testing.TB, nw *testcontainers.DockerNetwork, image string, i, n int) (string, error) {
	name := fmt.Sprintf("consul%d", i)
	cmd := []string{"agent", "-server", fmt.Sprintf("-bootstrap-expect=%d", n), "-node=" + name,
		"-client=0.0.0.0", `-bind={{ GetInterfaceIP "eth0" }}`, "-data-dir=" + ConsulDataDir}
	for j := 1; j <= n; j++ {
		if j != i {
			cmd = append(cmd, fmt.Sprintf("-retry-join=consul%d", j))
		}
	}
	c, err := testcontainers.Run(ctx, image, testcontainers.WithCmd(append(cmd, ConsulHCL...)...),
		testcontainers.WithExposedPorts("8500/tcp"), network.WithNetwork([]string{name}, nw), DataVolumes(ConsulDataDir),
		testcontainers.WithWaitStrategy(wait.ForListeningPort("8500/tcp")))
	testcontainers.CleanupContainer(t, c, testcontainers.StopTimeout(time.Second))
	if err != nil {
		return "", fmt.Errorf("start %s: %w", name, err)
	}
	return c.PortEndpoint(ctx, "8500/tcp", "")
}

// ConsulReady waits until every server at addrs reports a leader and n
// raft peers, and the catalog holds every agent's node: an agent answers
// "Missing node registration" to a session create until its node is
// registered, which follows the leader's election by a moment.
func ConsulReady(ctx context.Context, addrs []string, n int) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for _, a := range addrs {
		for !ConsulHasQuorum(ctx, a, n) {
			select {
			case <-ctx.Done():
				return fmt.Errorf("consul x%d at %s: no leader with %d peers: %w", n, a, n, ctx.Err())
			case <-tick.C:
			}
		}
	}
	return nil
}

// ConsulHasQuorum reports whether the server at addr has a leader, n raft
// peers and at least n nodes in its catalog.
func ConsulHasQuorum(ctx context.Context, addr string, n int) bool {
	var leader string
	var peers []string
	var nodes []json.RawMessage
	return GetJSON(ctx, "http://"+addr+"/v1/status/leader", &leader) == nil && leader != "" &&
		GetJSON(ctx, "http://"+addr+"/v1/status/peers", &peers) == nil && len(peers) == n &&
		GetJSON(ctx, "http://"+addr+"/v1/catalog/nodes", &nodes) == nil && len(nodes) >= n
}

// GetJSON GETs url with http.DefaultClient and decodes the JSON answer
// into v, within 2 s.
func GetJSON(ctx context.Context, url string, v any) error {
	return GetJSONWith(ctx, http.DefaultClient, url, v)
}

// GetJSONWith GETs url with hc and decodes the JSON answer into v, within
// 2 s.
func GetJSONWith(ctx context.Context, hc *http.Client, url string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
