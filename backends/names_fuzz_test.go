package backends_test

import (
	"path"
	"strings"
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// electionSeeds are names on both sides of ValidateElection's line.
var electionSeeds = []string{
	"a", "jobs/nightly", "p", "pb", "p.b", "p/b", "p/b/c", "a-b_c.d", "...", "a/.../b", ".a", "a.",
	"", "/", "/a", "a/", "a//b", ".", "..", "a/./b", "a/../b", "../a", "a b", "a\x00b", "ä", "a\\b",
	strings.Repeat("x", backends.MaxElectionLen), strings.Repeat("x", backends.MaxElectionLen+1),
	strings.Repeat("\xa5", backends.MaxElectionLen), strings.Repeat("\xa5", 10000),
}

// FuzzValidateElection: ValidateElection never panics; a name it accepts
// is 1 to MaxElectionLen bytes of [A-Za-z0-9._-/] that no path
// normalization changes (so no store or HTTP layer can read it as another
// name), and its error for a name it refuses is bounded however long the
// name.
func FuzzValidateElection(f *testing.F) {
	for _, s := range electionSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := backends.ValidateElection(name)
		if err != nil {
			// A refused name is quoted only up to MaxElectionLen bytes,
			// each quoted as at most 4 ("\xa5").
			if len(err.Error()) > 4*backends.MaxElectionLen+200 {
				t.Fatalf("error for a %d-byte name is %d bytes", len(name), len(err.Error()))
			}
			return
		}
		if len(name) == 0 || len(name) > backends.MaxElectionLen {
			t.Fatalf("accepted a %d-byte name", len(name))
		}
		if strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") != "" {
			t.Fatalf("accepted %q, which has a byte outside [A-Za-z0-9._-/]", name)
		}
		if path.Clean("/"+name) != "/"+name || path.Clean(name) != name {
			t.Fatalf("accepted %q, which path.Clean turns into %q", name, path.Clean("/"+name))
		}
	})
}
