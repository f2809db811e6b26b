// Package names maps election names and data keys to ZooKeeper node names,
// one to one: the one home of the zookeeper adapter's escaping, shared with
// its test harness.
package names

import "strings"

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
// injective (the tests' Election reverses it). name must not be empty.
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
