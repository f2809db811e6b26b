package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteSplice checks that Splice replaces only the generated part of
// a document and refuses one without markers.
func TestWriteSplice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "benchmarks.md")
	doc := "# Method\nhand-written\n" + spliceBegin + "\nold tables\n" + spliceEnd + "\ntail\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Splice(path, "new tables"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Method\nhand-written\n" + spliceBegin + "\nnew tables\n" + spliceEnd + "\ntail\n"
	if string(b) != want {
		t.Fatalf("after Splice:\n%s\nwant:\n%s", b, want)
	}

	bare := filepath.Join(t.TempDir(), "bare.md")
	if err := os.WriteFile(bare, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = Splice(bare, "x")
	if err == nil || !strings.Contains(err.Error(), "markers") {
		t.Fatalf("Splice without markers: err = %v, want one naming the markers", err)
	}
	if b, _ := os.ReadFile(bare); string(b) != "no markers\n" {
		t.Fatalf("Splice without markers changed the file: %q", b)
	}
}
