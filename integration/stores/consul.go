package stores

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

// consulHCL is the configuration every agent gets: no update check (no
// traffic leaves the machine) and the fast raft timing of
// raft_multiplier = 1. The agents keep their default limits, 200 HTTP
// connections per client among them, as users' agents do, so that the
// suites catch a client that needs more.
var consulHCL = []string{"-hcl", "disable_update_check = true", "-hcl", "performance { raft_multiplier = 1 }"}

// consulDataDir is the servers' -data-dir (the official image's volume). A
// dev agent keeps its state in memory.
const consulDataDir = "/consul/data"

// Consul starts a Consul cluster of n servers (1: a dev agent; 3: three
// servers bootstrapping together) and returns the HTTP addresses
// (127.0.0.1:port) of every server once the cluster has a leader and all
// its peers.
func Consul(t testing.TB, n int) []string {
	t.Helper()
	Require(t, ConsulImage)
	ctx := startContext(t)
	if n == 1 {
		c, err := tcconsul.Run(ctx, ConsulImage, testcontainers.WithCmd(append([]string{"agent", "-dev", "-client", "0.0.0.0"}, consulHCL...)...))
		testcontainers.CleanupContainer(t, c, testcontainers.StopTimeout(time.Second))
		if err != nil {
			t.Fatalf("start consul: %v", err)
		}
		addr, err := Endpoint(ctx, c, "8500/tcp")
		if err != nil {
			t.Fatal(err)
		}
		return consulReady(t, ctx, []string{addr}, 1)
	}
	nw, err := network.New(ctx)
	if err != nil {
		t.Fatalf("consul network: %v", err)
	}
	testcontainers.CleanupNetwork(t, nw)
	addrs := make([]string, n)
	for i := range n {
		addrs[i] = startConsulServer(t, ctx, nw, i+1, n)
	}
	return consulReady(t, ctx, addrs, n)
}

func startConsulServer(t testing.TB, ctx context.Context, nw *testcontainers.DockerNetwork, i, n int) string {
	name := fmt.Sprintf("consul%d", i)
	cmd := []string{"agent", "-server", fmt.Sprintf("-bootstrap-expect=%d", n), "-node=" + name,
		"-client=0.0.0.0", `-bind={{ GetInterfaceIP "eth0" }}`, "-data-dir=" + consulDataDir}
	for j := 1; j <= n; j++ {
		if j != i {
			cmd = append(cmd, fmt.Sprintf("-retry-join=consul%d", j))
		}
	}
	c, err := testcontainers.Run(ctx, ConsulImage, testcontainers.WithCmd(append(cmd, consulHCL...)...),
		testcontainers.WithExposedPorts("8500/tcp"), network.WithNetwork([]string{name}, nw), DataVolumes(consulDataDir),
		testcontainers.WithWaitStrategy(wait.ForListeningPort("8500/tcp")))
	testcontainers.CleanupContainer(t, c, testcontainers.StopTimeout(time.Second))
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	addr, err := c.PortEndpoint(ctx, "8500/tcp", "")
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// consulReady waits until every server reports a leader and n raft peers,
// and the catalog holds every agent's node: an agent answers
// "Missing node registration" to a session create until its node is
// registered, which follows the leader's election by a moment.
func consulReady(t testing.TB, ctx context.Context, addrs []string, n int) []string {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for _, a := range addrs {
		for !consulHasQuorum(ctx, a, n) {
			select {
			case <-ctx.Done():
				t.Fatalf("consul x%d at %s: no leader with %d peers: %v", n, a, n, ctx.Err())
			case <-tick.C:
			}
		}
	}
	return addrs
}

func consulHasQuorum(ctx context.Context, addr string, n int) bool {
	var leader string
	var peers []string
	var nodes []json.RawMessage
	return getJSON(ctx, "http://"+addr+"/v1/status/leader", &leader) == nil && leader != "" &&
		getJSON(ctx, "http://"+addr+"/v1/status/peers", &peers) == nil && len(peers) == n &&
		getJSON(ctx, "http://"+addr+"/v1/catalog/nodes", &nodes) == nil && len(nodes) >= n
}

func getJSON(ctx context.Context, url string, v any) error {
	return getJSONWith(ctx, http.DefaultClient, url, v)
}

// getJSONWith GETs url with hc and decodes the JSON answer into v.
func getJSONWith(ctx context.Context, hc *http.Client, url string, v any) error {
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
