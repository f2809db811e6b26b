// Package cron holds the test of the leader-only cron example.
package cron

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/leaseholdtest"
)

// TestLeaderOnlyCron: two hosts run the scheduler under leasehold; the
// leader's leasehold is SIGKILLed; the job log shows the successor's token
// taking over and never an older token after a newer one.
func TestLeaderOnlyCron(t *testing.T) {
	srv := leaseholdtest.Etcd(t)
	bin := filepath.Join(t.TempDir(), "leasehold")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/leasehold/leasehold/cmd/leasehold").CombinedOutput(); err != nil {
		t.Fatalf("build leasehold: %v\n%s", err, out)
	}
	joblog := filepath.Join(t.TempDir(), "job.log")
	store := "etcd://" + strings.TrimPrefix(srv.Endpoints[0], "http://") + "/cron"
	host := func(name string) *exec.Cmd {
		c := exec.Command(bin, "run", "--store", store, "--election", "cron/nightly", "--ttl", "2s",
			"--identity", name, "--", "./scheduler.sh")
		c.Env = append(os.Environ(), "INTERVAL=0.1", "JOB_LOG="+joblog)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		return c
	}
	a := host("host-a")
	first := waitLine(t, joblog, func(string) bool { return true })
	b := host("host-b")
	leader, successor := a, "host-b"
	if strings.Contains(first, "host-b") {
		leader, successor = b, "host-a"
	}
	if err := leader.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	id := successor
	waitLine(t, joblog, func(l string) bool { return strings.Contains(l, "identity="+id) })
	tokens := readTokens(t, joblog)
	for i := 1; i < len(tokens); i++ {
		if tokens[i] < tokens[i-1] {
			t.Fatalf("job log shows token %d after %d: two schedulers ran at once\n%v", tokens[i], tokens[i-1], tokens)
		}
	}
}

// waitLine waits up to 20 s for a line of the file that ok accepts.
func waitLine(t *testing.T, path string, ok func(string) bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if f, err := os.Open(path); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if ok(sc.Text()) {
					f.Close()
					return sc.Text()
				}
			}
			f.Close()
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no matching line in %s within 20s", path)
		case <-tick.C:
		}
	}
}

func readTokens(t *testing.T, path string) []int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		_, v, _ := strings.Cut(l, "token=")
		v, _, _ = strings.Cut(v, " ")
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("bad line %q", l)
		}
		out = append(out, n)
	}
	return out
}
