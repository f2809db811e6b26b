package leaseholdtest_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyTestsImportIt: no package of the module imports leaseholdtest
// outside its tests, so that no program links a store server through it.
func TestOnlyTestsImportIt(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`,
		"github.com/leasehold/leasehold/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const kit = "github.com/leasehold/leasehold/leaseholdtest"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if imp == kit {
				t.Errorf("%s imports %s; only tests may", fields[0], kit)
			}
		}
	}
}
