package backends

import (
	"fmt"
	"strings"
)

// MaxElectionLen is the longest election name, in bytes, that is portable
// across all stores.
const MaxElectionLen = 200

// ValidateElection reports whether name is a portable election name: 1 to
// MaxElectionLen bytes of segments separated by single slashes, each made of
// ASCII letters, digits, '.', '_' and '-', with no leading or trailing slash
// and no segment equal to "." or "..". Every store accepts such a name as a
// key or path suffix.
func ValidateElection(name string) error {
	if name == "" {
		return fmt.Errorf("election name is empty: want 1 to %d bytes of [A-Za-z0-9._-] segments separated by '/'", MaxElectionLen)
	}
	if len(name) > MaxElectionLen {
		return fmt.Errorf("election name is %d bytes: the maximum is %d", len(name), MaxElectionLen)
	}
	for _, seg := range strings.Split(name, "/") {
		if err := validateSegment(seg); err != nil {
			return fmt.Errorf("election name %q: %v", name, err)
		}
	}
	return nil
}

func validateSegment(seg string) error {
	switch seg {
	case "":
		return fmt.Errorf("empty segment (leading, trailing or doubled '/')")
	case ".", "..":
		return fmt.Errorf("segment %q is not allowed", seg)
	}
	for i := 0; i < len(seg); i++ {
		if !isNameByte(seg[i]) {
			return fmt.Errorf("byte %q at %d is not one of [A-Za-z0-9._-/]", seg[i], i)
		}
	}
	return nil
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-'
}
