package stores

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// IsolatePeers cuts node i off from the other nodes of the cluster while
// its clients still reach it: inside the node's network namespace it drops
// every packet to and from the other nodes' addresses. A node so cut off
// does not know it at first; a ZooKeeper follower, for one, keeps serving
// its clients until syncLimit ticks pass without word from its leader,
// which Disconnect (it cuts the clients too) never shows. It runs the
// host's nsenter and iptables, and so needs root; a test without them is
// stopped as Require stops one without Docker. HealPeers undoes it.
func (c *Cluster) IsolatePeers(ctx context.Context, i int) error {
	return c.peerRules(ctx, i, "-I")
}

// HealPeers removes the rules IsolatePeers added to node i.
func (c *Cluster) HealPeers(ctx context.Context, i int) error {
	return c.peerRules(ctx, i, "-D")
}

// IsolationUnavailable says why IsolatePeers cannot work here, or returns
// "" if it can: it needs the host's nsenter and iptables, run as root.
func IsolationUnavailable() string {
	for _, bin := range []string{"nsenter", "iptables"} {
		if _, err := exec.LookPath(bin); err != nil {
			return "IsolatePeers needs " + bin + " on the host: " + err.Error()
		}
	}
	if os.Geteuid() != 0 {
		return "IsolatePeers needs root (nsenter into a container's network namespace)"
	}
	return ""
}

// RequireIsolation stops the test (skip, or fail under CI=true) if
// IsolatePeers cannot work here.
func RequireIsolation(t testing.TB) {
	t.Helper()
	if why := IsolationUnavailable(); why != "" {
		stop(t, why)
	}
}

// peerRules adds (-I) or deletes (-D) the drop rules of node i, one pair
// per other node.
func (c *Cluster) peerRules(ctx context.Context, i int, verb string) error {
	info, err := c.Nodes[i].c.Inspect(ctx)
	if err != nil {
		return err
	}
	if info.State == nil || info.State.Pid == 0 {
		return fmt.Errorf("%s is not running", c.Nodes[i].Name)
	}
	pid := strconv.Itoa(info.State.Pid)
	for j, n := range c.Nodes {
		if j == i {
			continue
		}
		ip, err := n.c.ContainerIP(ctx)
		if err != nil {
			return fmt.Errorf("address of %s: %w", n.Name, err)
		}
		for _, rule := range [][]string{{"INPUT", "-s", ip}, {"OUTPUT", "-d", ip}} {
			args := []string{"-t", pid, "-n", "iptables", verb, rule[0], rule[1], rule[2], "-j", "DROP"}
			if out, err := exec.CommandContext(ctx, "nsenter", args...).CombinedOutput(); err != nil {
				return fmt.Errorf("nsenter %v: %w: %s", args, err, out)
			}
		}
	}
	return nil
}
