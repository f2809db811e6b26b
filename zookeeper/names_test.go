package zookeeper

import (
	"strings"
	"testing"

	"github.com/leasehold/leasehold/backends"
)

func TestNodeName(t *testing.T) {
	cases := map[string]string{
		"a":       "a",
		"p.b":     "p.b",
		"x-1_2.Z": "x-1_2.Z",
		"p/b":     "p%2Fb",
		"p/b/c":   "p%2Fb%2Fc",
		"%":       "%25",
		"a%2Fb":   "a%252Fb",
		".":       "%2E",
		"..":      "%2E%2E",
		"...":     "...",
		"~queue":  "%7Equeue",
		"ü":       "%C3%BC",
		"\x00":    "%00",
	}
	for name, want := range cases {
		if got := nodeName(name); got != want {
			t.Errorf("nodeName(%q) = %q, want %q", name, got, want)
		}
		if back, err := electionOf(want); err != nil || back != name {
			t.Errorf("electionOf(%q) = %q, %v, want %q", want, back, err, name)
		}
	}
	for _, seg := range []string{"", "%", "%2", "%2f", "%41", "%zz", "a/b", ".", "..", "~x", "%2E."} {
		if name, err := electionOf(seg); err == nil {
			t.Errorf("electionOf(%q) = %q, want an error: nodeName never makes it", seg, name)
		}
	}
}

// FuzzNodeName checks the mapping of names to node names: every non-empty
// name maps to a valid ZooKeeper path segment, back to itself, and (so) to
// a node name no other name has; a portable name without '/' is its own
// node name.
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
			seg := nodeName(name)
			if err := validateSegment(seg); err != nil {
				t.Fatalf("nodeName(%q) = %q: not a valid segment: %v", name, seg, err)
			}
			if back, err := electionOf(seg); err != nil || back != name {
				t.Fatalf("electionOf(nodeName(%q) = %q) = %q, %v", name, seg, back, err)
			}
			if backends.ValidateElection(name) == nil && !strings.Contains(name, "/") && seg != name {
				t.Fatalf("nodeName(%q) = %q: a portable name without '/' must be its own node name", name, seg)
			}
		}
		if a != "" && b != "" && a != b && nodeName(a) == nodeName(b) {
			t.Fatalf("nodeName(%q) = nodeName(%q) = %q", a, b, nodeName(a))
		}
		if seg, err := electionOf(a); err == nil && nodeName(seg) != a {
			t.Fatalf("electionOf(%q) = %q, whose node name is %q", a, seg, nodeName(seg))
		}
	})
}
