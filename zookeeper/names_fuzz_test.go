package zookeeper

import (
	"strings"
	"testing"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/zookeeper/internal/names"
)

// FuzzNodeName checks the mapping of names to node names: every non-empty
// name maps to a valid ZooKeeper path segment, and to a node name no other
// name has (names' FuzzElection maps it back); a portable name without '/'
// is its own node name.
func FuzzNodeName(f *testing.F) {
	for _, s := range []string{"a", "p", "pb", "p.b", "p/b", "p/b/c", "%", "%2F", ".", "..", "~queue",
		"test/TestX-0a1b", "a//b", "/", "\x00\xff", "ü/€", "\ufff0"} {
		f.Add(s, "p/b")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, name := range []string{a, b} {
			if name == "" {
				continue
			}
			seg := names.Node(name)
			if err := validateSegment(seg); err != nil {
				t.Fatalf("names.Node(%q) = %q: not a valid segment: %v", name, seg, err)
			}
			if backends.ValidateElection(name) == nil && !strings.Contains(name, "/") && seg != name {
				t.Fatalf("names.Node(%q) = %q: a portable name without '/' must be its own node name", name, seg)
			}
		}
		if a != "" && b != "" && a != b && names.Node(a) == names.Node(b) {
			t.Fatalf("names.Node(%q) = names.Node(%q) = %q", a, b, names.Node(a))
		}
	})
}
