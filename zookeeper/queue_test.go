package zookeeper

import "testing"

// TestEntryNames checks that an entry's name, derived from its Owner and
// Token, parses back, and that other children are no entries.
func TestEntryNames(t *testing.T) {
	for _, tok := range []uint64{1, 2, 1000, 2147483648} {
		name := entryName("1a2b", tok)
		if owner, got, ok := parseEntry(name); !ok || owner != "1a2b" || got != tok {
			t.Errorf("parseEntry(%q) = %q, %d, %v; want 1a2b, %d, true", name, owner, got, ok, tok)
		}
	}
	if got := entryName("1a2b", 1); got != "~1a2b-0000000000" {
		t.Errorf("entryName(1a2b, 1) = %q, want ~1a2b-0000000000", got)
	}
	for _, name := range []string{"b", "~1a2b", "~1a2b-", "~-0000000001", "~1a2b-000000001", "~1a2b--000000001", "~1a2b-00000000x1"} {
		if owner, tok, ok := parseEntry(name); ok {
			t.Errorf("parseEntry(%q) = %q, %d, true; want no entry", name, owner, tok)
		}
	}
}
