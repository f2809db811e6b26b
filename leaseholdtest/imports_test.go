package leaseholdtest_test

import (
	"os/exec"
	"path"
	"strings"
	"testing"
)

const module = "github.com/leasehold/leasehold"

// TestOnlyTestsImportIt: no package of the module imports leaseholdtest
// outside its tests, so that no program links a store server through it.
// A suite package (a name ending in "test", such as lease/shard/shardtest)
// may import it, as long as only tests import the suite in turn.
func TestOnlyTestsImportIt(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`,
		module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const kit = module + "/leaseholdtest"
	importers := map[string][]string{} // package: the module's packages that import it outside tests
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			importers[imp] = append(importers[imp], fields[0])
		}
	}
	for _, p := range importers[kit] {
		if !strings.HasSuffix(p, "test") {
			t.Errorf("%s imports %s; only tests and suites may", p, kit)
		}
		for _, q := range importers[p] {
			t.Errorf("%s imports the suite %s, which imports %s; only tests may", q, p, kit)
		}
	}
}

// harnesses are the module's *test packages the kit may build: the store
// harnesses, which connect to a running store and import no suite.
var harnesses = map[string]bool{
	module + "/etcd/etcdtest":     true,
	module + "/zookeeper/zktest":  true,
	module + "/consul/consultest": true,
}

// TestKitBuildsNoSuite: a user who imports leaseholdtest builds none of
// the project's own suites: not the integration, fault or benchmark
// suites, not the conformance or elector suite (backendtest, leasetest),
// nor the fault suite's toxiproxy server; of the module's *test packages,
// only the store harnesses (see the package doc).
func TestKitBuildsNoSuite(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/leaseholdtest").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if why := suite(dep); why != "" {
			t.Errorf("leaseholdtest builds %s (%s)", dep, why)
		}
	}
}

// suite says why the package at path is a suite a user must not build,
// or returns "".
func suite(p string) string {
	if strings.Contains(p, "toxiproxy") {
		return "the fault suite's proxy server"
	}
	rel, ok := strings.CutPrefix(p, module+"/")
	if !ok {
		return ""
	}
	for _, dir := range []string{"integration", "bench", "cmd"} {
		if rel == dir || strings.HasPrefix(rel, dir+"/") {
			return "the project's " + dir + " tree"
		}
	}
	if strings.HasSuffix(path.Base(rel), "test") && !harnesses[p] && rel != "leaseholdtest" {
		return "a test suite, not a store harness"
	}
	return ""
}
