package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/report"
	"github.com/leasehold/leasehold/bench/internal/turn"
	"github.com/leasehold/leasehold/integration/stores"
)

// TestBench runs every scenario against etcd, ZooKeeper and Consul in
// containers and writes the results. In quick mode it fails only if a
// scenario cannot run, never on a timing.
func TestBench(t *testing.T) {
	cfg := loadConfig()
	n, err := envCount("BENCH_HANDOFFS", cfg.handN)
	if err != nil {
		t.Fatal(err)
	}
	cfg.handN = n
	for name := range cfg.scenarios {
		if !slices.Contains(scenarioNames, name) {
			t.Fatalf("BENCH_SCENARIOS: unknown scenario %q: want a comma-separated subset of %s", name, strings.Join(scenarioNames, ","))
		}
	}
	base := os.Getenv("BENCH_OUT")
	if base == "" {
		base = "results"
	}
	out := base
	if cfg.scenarios != nil { // a partial run leaves the full run's files alone
		out = filepath.Join(base, "partial-"+strings.Join(cfg.scenarioList(), "-"))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := buildCandidate(t)
	if os.Getenv("BENCH_HANDOFF_PROCS") != "" {
		cfg.procs = bin
	}
	start := time.Now()
	res := &report.Results{Mode: map[bool]string{true: "quick", false: "full"}[cfg.quick],
		Started: start.UTC().Format(time.RFC3339), Machine: machine(), Commit: commit(), Scenarios: cfg.scenarioList()}
	stores.Bridge = true // no userland proxy between the clients and the stores (see stores.Bridge)
	var sts []*env.Store
	for _, k := range cfg.stores {
		sts = append(sts, startStore(t, k))
	}
	res.Stores = make([]*report.Store, len(sts))
	turns := &turn.Lock{}
	var wg sync.WaitGroup
	for i, st := range sts { // latencies: the stores at once, taking turns (see runTurns)
		st.Turn = turns
		wg.Go(func() { res.Stores[i] = runTurns(t, cfg, st) })
	}
	wg.Wait()
	res.Turns = len(sts) > 1
	for i, st := range sts { // the machine to each store in turn (see runAlone)
		runAlone(t, cfg, st, res.Stores[i])
	}
	for i, st := range sts { // waits for TTLs: the stores at once (see runWaits)
		wg.Go(func() { runWaits(t, cfg, st, bin, res.Stores[i]) })
	}
	wg.Wait()
	res.WallSeconds = time.Since(start).Seconds()
	if err := report.Write(out, res); err != nil {
		t.Fatal(err)
	}
	t.Logf("results in %s (%.0f s)", out, res.WallSeconds)
	if doc := os.Getenv("BENCH_DOC"); doc != "" && !cfg.quick && len(sts) == 3 {
		if err := report.WritePage(doc, base); err != nil { // the whole page, from every run in base
			t.Error(err)
		}
	}
	for _, s := range res.Stores {
		for _, e := range s.Errors {
			if cfg.quick {
				t.Errorf("%s: %s", s.Name, e)
			} else {
				t.Logf("%s: %s", s.Name, e)
			}
		}
	}
}

// buildCandidate builds cmd/candidate for the crash runs.
func buildCandidate(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "candidate")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/candidate")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build candidate: %v\n%s", err, b)
	}
	return bin
}

func machine() string {
	return runtime.GOOS + "/" + runtime.GOARCH + ", " + runtime.Version() + ", " +
		strconv.Itoa(runtime.NumCPU()) + " CPUs, single-node stores in containers (etcd and ZooKeeper data on Docker volumes; Consul dev agent in memory), reached at their Docker bridge address"
}

// commit names the commit the run is built from: git rev-parse --short
// HEAD, with "+dirty" if the work tree differs from it; "" outside git.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if exec.Command("git", "diff", "--quiet", "HEAD").Run() != nil {
		c += "+dirty"
	}
	return c
}

// startStore starts a single-node store of kind k for the run.
func startStore(t *testing.T, k env.Kind) *env.Store {
	switch k {
	case env.Etcd:
		return &env.Store{Kind: k, Endpoints: stores.Etcd(t, 1)}
	case env.ZooKeeper:
		return &env.Store{Kind: k, Endpoints: env.StartZooKeeper(t)}
	case env.Consul:
		return &env.Store{Kind: k, Endpoints: stores.Consul(t, 1)}
	}
	t.Fatalf("BENCH_STORES: unknown store %q: want a comma-separated subset of etcd,zookeeper,consul", k)
	return nil
}
