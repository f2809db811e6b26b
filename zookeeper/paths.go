package zookeeper

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// validatePath checks p against ZooKeeper's path rules (PathUtils in the
// server): absolute, no trailing or doubled '/', no "." or ".." segment,
// and none of the characters the server rejects. The error names p.
func validatePath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("path is empty: want an absolute path such as /leasehold")
	case p[0] != '/':
		return fmt.Errorf("path %q does not start with \"/\"", p)
	case p == "/":
		return nil
	case strings.HasSuffix(p, "/"):
		return fmt.Errorf("path %q ends in \"/\"", p)
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if err := validateSegment(seg); err != nil {
			return fmt.Errorf("path %q: %v", p, err)
		}
	}
	return nil
}

func validateSegment(seg string) error {
	switch seg {
	case "":
		return fmt.Errorf("empty segment (doubled \"/\")")
	case ".", "..":
		return fmt.Errorf("segment %q is not allowed", seg)
	}
	for i, r := range seg {
		if r == utf8.RuneError || badRune(r) {
			return fmt.Errorf("character %U at byte %d of segment %q is not allowed", r, i, seg)
		}
	}
	return nil
}

// badRune reports the characters ZooKeeper rejects in a path: control
// characters, surrogates and private-use characters, and U+FFF0–U+FFFF.
func badRune(r rune) bool {
	return r <= 0x1f || (r >= 0x7f && r <= 0x9f) || (r >= 0xd800 && r <= 0xf8ff) || r >= 0xfff0 && r <= 0xffff
}

// validatePrefix checks Options.Prefix.
func validatePrefix(prefix string) error {
	if err := validatePath(prefix); err != nil {
		return fmt.Errorf("zookeeper: Prefix: %v", err)
	}
	switch {
	case prefix == "/":
		return fmt.Errorf("zookeeper: Prefix %q: want a node below the root, e.g. %q", prefix, DefaultPrefix)
	case prefix == "/zookeeper" || strings.HasPrefix(prefix, "/zookeeper/"):
		return fmt.Errorf("zookeeper: Prefix %q: /zookeeper is reserved by the server", prefix)
	}
	return nil
}

// ancestors returns the paths of p's ancestors below the root, outermost
// first: "/a/b/c" gives "/a", "/a/b".
func ancestors(p string) []string {
	var out []string
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}
