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

	"github.com/leasehold/leasehold/internal/containers"
)

// ConsulManagementToken is the management token of ConsulACL's agent.
const ConsulManagementToken = "4d1e7f4c-1eaf-4c8e-9d0c-6c1f0e9b7a11"

// ConsulACL starts a Consul dev agent with ACLs on and default_policy =
// "deny", whose management token (ConsulManagementToken) is also its
// agent token, and returns its HTTP address once it has a leader and its
// node is registered (sessions need it).
func ConsulACL(t testing.TB) string {
	t.Helper()
	Require(t, ConsulImage)
	ctx := startContext(t)
	acl := `acl { enabled = true, default_policy = "deny", down_policy = "deny", ` +
		`tokens { initial_management = "` + ConsulManagementToken + `", agent = "` + ConsulManagementToken + `" } }`
	cmd := append([]string{"agent", "-dev", "-client", "0.0.0.0", "-hcl", acl}, containers.ConsulHCL...)
	c, err := tcconsul.Run(ctx, ConsulImage, testcontainers.WithCmd(cmd...))
	testcontainers.CleanupContainer(t, c, testcontainers.StopTimeout(time.Second))
	if err != nil {
		t.Fatalf("start consul with ACLs: %v", err)
	}
	addr, err := Endpoint(ctx, c, "8500/tcp")
	if err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !consulACLReady(ctx, addr) {
		select {
		case <-ctx.Done():
			t.Fatalf("consul with ACLs at %s: no leader or no node: %v", addr, ctx.Err())
		case <-tick.C:
		}
	}
	return addr
}

// consulACLReady reports whether the agent has a leader and its node in
// the catalog, as the management token sees it.
func consulACLReady(ctx context.Context, addr string) bool {
	var leader string
	var nodes []map[string]any
	return getJSONToken(ctx, "http://"+addr+"/v1/status/leader", &leader) == nil && leader != "" &&
		getJSONToken(ctx, "http://"+addr+"/v1/catalog/nodes", &nodes) == nil && len(nodes) >= 1
}

// getJSONToken is getJSON with the management token.
func getJSONToken(ctx context.Context, url string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("X-Consul-Token", ConsulManagementToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
