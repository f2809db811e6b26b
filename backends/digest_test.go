package backends_test

import (
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// TestRosterDigest: rosters with the same records in the same order have
// one digest; a record that joined, left, or changed its value, token or
// owner changes it, and so does the order; field bounds are kept apart.
func TestRosterDigest(t *testing.T) {
	a := backends.Record{Owner: "s1", Token: 5, Value: []byte(`{"identity":"a"}`)}
	b := backends.Record{Owner: "s2", Token: 7, Value: []byte(`{"identity":"b"}`)}
	base := backends.RosterDigest([]backends.Record{a, b})
	if again := backends.RosterDigest([]backends.Record{a, b}); again != base {
		t.Fatalf("one roster, two digests: %x and %x", base, again)
	}
	changed := func(f func(*backends.Record)) []backends.Record {
		c := b
		f(&c)
		return []backends.Record{a, c}
	}
	for name, recs := range map[string][]backends.Record{
		"joined":      {a, b, {Owner: "s3", Token: 9}},
		"left":        {a},
		"value":       changed(func(r *backends.Record) { r.Value = []byte(`{"identity":"b","damped":true}`) }),
		"token":       changed(func(r *backends.Record) { r.Token = 8 }),
		"owner":       changed(func(r *backends.Record) { r.Owner = "s4" }),
		"order":       {b, a},
		"owner|value": changed(func(r *backends.Record) { r.Owner, r.Value = "s2{", []byte(`"identity":"b"}`) }),
	} {
		if backends.RosterDigest(recs) == base {
			t.Errorf("%s: digest unchanged", name)
		}
	}
	if backends.RosterDigest(nil) == base {
		t.Error("empty roster: digest of the full one")
	}
}
