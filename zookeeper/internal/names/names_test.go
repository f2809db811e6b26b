package names

import (
	"testing"
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
		if got := Node(name); got != want {
			t.Errorf("Node(%q) = %q, want %q", name, got, want)
		}
		if back, err := Election(want); err != nil || back != name {
			t.Errorf("Election(%q) = %q, %v, want %q", want, back, err, name)
		}
	}
	for _, seg := range []string{"", "%", "%2", "%2f", "%41", "%zz", "a/b", ".", "..", "~x", "%2E."} {
		if name, err := Election(seg); err == nil {
			t.Errorf("Election(%q) = %q, want an error: Node never makes it", seg, name)
		}
	}
}
