package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree writes files (path: content) under a new directory and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestSizes: an oversized document fails its limit; a pending limit
// fails only when enforced; a total sums its glob.
func TestSizes(t *testing.T) {
	root := tree(t, map[string]string{
		"README.md": strings.Repeat("x", 8193), "docs/a.md": strings.Repeat("y", 100), "docs/b.md": strings.Repeat("z", 100),
	})
	lines, over, err := checkSizes(root, []limit{{path: "README.md", max: 8192}}, false)
	if err != nil || !over || !strings.Contains(lines[0], "8193 bytes, limit    8192: OVER") {
		t.Errorf("oversized README: over %t, err %v, %q", over, err, lines)
	}
	pending := []limit{{path: "docs/*.md", max: 150, pending: true, total: true}}
	lines, over, err = checkSizes(root, pending, false)
	if err != nil || over || !strings.Contains(lines[0], "200 bytes, limit     150: OVER (pending") {
		t.Errorf("pending total, not enforced: over %t, err %v, %q", over, err, lines)
	}
	if _, over, _ = checkSizes(root, pending, true); !over {
		t.Errorf("pending total, enforced: not over")
	}
	if _, over, err = checkSizes(root, []limit{{path: "docs/a.md", max: 100}}, true); over || err != nil {
		t.Errorf("a document at its limit: over %t, err %v", over, err)
	}
	if _, _, err = checkSizes(root, []limit{{path: "docs/none.md", max: 100}}, true); err == nil {
		t.Errorf("a missing document: no error")
	}
}

// TestFigures: a README table figure found in no source fails, one found
// in a source (thousands separators aside) or marked as a bound passes,
// and digits in names or code do not count.
func TestFigures(t *testing.T) {
	root := tree(t, map[string]string{
		"README.md": "# x\n\n| | etcd v3 |\n|---|---|\n| hand-off p99 | 3.98 ms |\n| writes | 41,964 |\n" +
			"| crash | 19.00 s |\n| TTL | ≥ 2 s, 10 s–24 h |\n| key | `Options{TTL: 7}` |\n\nText 123 outside tables.\n",
		"docs/benchmarks.md": "| etcd | 3.98 |\n",
		"docs/faults.md":     "accepted 41964\n",
	})
	got, err := unsourcedFigures(root, "README.md", []string{"docs/benchmarks.md", "docs/faults.md"})
	if err != nil {
		t.Fatal(err)
	}
	want := []figure{{figure: "19.00", cell: "19.00 s"}}
	if !slices.Equal(got, want) {
		t.Errorf("unsourced figures = %v, want %v", got, want)
	}
}
