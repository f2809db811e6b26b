// Package names maps election names and data keys to ZooKeeper node names
// and back: the one home of the zookeeper adapter's escaping, shared with
// its test harness.
package names

import (
	"errors"
	"fmt"
	"strings"
)

// escapeByte starts an escape in a node name: '%' and two upper-case hex
// digits stand for one byte of the name.
const escapeByte = '%'

const upperHex = "0123456789ABCDEF"

// Node maps a name (an election or a data key) to one ZooKeeper path
// segment, so that no two names nest: '/' and every byte other than
// ASCII letters, digits, '.', '_' and '-' become '%' and the byte in two
// upper-case hex digits ("a/b" is "a%2Fb", "%" is "%25"), and the names
// "." and ".." have their dots escaped too ("%2E", "%2E%2E"), which
// ZooKeeper would refuse as segments. A name without '/' that
// backends.ValidateElection accepts is its own node name. The mapping is
// injective and reversed by Election. name must not be empty.
func Node(name string) string {
	if name == "." || name == ".." {
		return strings.Repeat("%2E", len(name))
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if plainByte(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte(escapeByte)
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&0xf])
	}
	return b.String()
}

// plainByte reports whether c stands for itself in a node name.
func plainByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-'
}

// Election reverses Node. It fails on a segment Node does not
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
