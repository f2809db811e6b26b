package names

import (
	"errors"
	"fmt"
	"strings"
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

// Election reverses Node, the tests' oracle of its injectivity. It fails on a segment Node does not
// produce (an unescaped byte that needs escaping, a lower-case or short
// escape, an escaped byte that needs none), so that every name has exactly
// one node name.
func Election(seg string) (string, error) {
	if seg == "" {
		return "", errors.New("empty node name")
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c != escapeByte {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(seg) {
			return "", fmt.Errorf("node name %q: escape at byte %d is cut short", seg, i)
		}
		hi, lo := strings.IndexByte(upperHex, seg[i+1]), strings.IndexByte(upperHex, seg[i+2])
		if hi < 0 || lo < 0 {
			return "", fmt.Errorf("node name %q: escape at byte %d is not %%XX with upper-case hex digits", seg, i)
		}
		b.WriteByte(byte(hi<<4 | lo))
		i += 2
	}
	name := b.String()
	if Node(name) != seg {
		return "", fmt.Errorf("node name %q is not the canonical escape of %q", seg, name)
	}
	return name, nil
}

// FuzzElection checks that Node is injective: every non-empty name's node
// name maps back to it (Election), and a segment Election accepts is the
// node name of the name it gives.
func FuzzElection(f *testing.F) {
	for _, s := range []string{"a", "p/b", "%", "%2F", ".", "..", "~queue", "\x00\xff", "ü/€"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, a string) {
		if back, err := Election(Node(a)); a != "" && (err != nil || back != a) {
			t.Fatalf("Election(Node(%q) = %q) = %q, %v", a, Node(a), back, err)
		}
		if name, err := Election(a); err == nil && Node(name) != a {
			t.Fatalf("Election(%q) = %q, whose node name is %q", a, name, Node(name))
		}
	})
}
