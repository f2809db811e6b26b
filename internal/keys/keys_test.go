package keys_test

import (
	"strings"
	"testing"

	"github.com/leasehold/leasehold/internal/keys"
)

func TestLayout(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{keys.Leader("/p/", "a/b"), "/p/a/b"},
		{keys.Data("/p/", "cfg"), "/p/~data/cfg"},
		{keys.Queue("/p/", "a/b"), "/p/~queue/a/b/~"},
		{keys.Roster("/p/", "a/b"), "/p/~roster/a/b/~"},
		{keys.Term("/p/", "a/b"), "/p/~term/a/b"},
		{keys.Layout("/p/"), "/p/~layout"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	// The entries of "a/b" are not under the queue prefix of "a".
	if strings.HasPrefix(keys.Queue("/p/", "a/b")+"s1", keys.Queue("/p/", "a")) {
		t.Error("queue of a/b nests under queue of a")
	}
	if strings.HasPrefix(keys.Roster("/p/", "a/b")+"s1", keys.Roster("/p/", "a")) {
		t.Error("roster of a/b nests under roster of a")
	}
}

func TestMarker(t *testing.T) {
	for _, tc := range []struct {
		v     string
		to    string
		entry uint64
		ok    bool
	}{
		{keys.Marker("7a", 0), "7a", 0, true},
		{keys.Marker("7a", 12), "7a", 12, true},
		{"", "", 0, false},
		{"7a", "", 0, false},
		{" 3", "", 0, false},
		{"7a -1", "", 0, false},
	} {
		to, entry, ok := keys.ParseMarker([]byte(tc.v))
		if to != tc.to || entry != tc.entry || ok != tc.ok {
			t.Errorf("ParseMarker(%q) = %q, %d, %v; want %q, %d, %v", tc.v, to, entry, ok, tc.to, tc.entry, tc.ok)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		key, seg, election, id string
		ok                     bool
	}{
		{keys.Leader("/p/", "a/b"), "", "a/b", "", true},
		{keys.Queue("/p/", "a/b") + "s1", "~queue", "a/b", "s1", true},
		{keys.Roster("/p/", "a/b") + "s1", "~roster", "a/b", "s1", true},
		{keys.Term("/p/", "a/b"), "~term", "a/b", "", true},
		{keys.Data("/p/", "cfg"), "", "", "", false},
		{"/p/~queue/a/b", "", "", "", false},
		{"/q/a", "", "", "", false},
		{"/p/", "", "", "", false},
	} {
		seg, el, id, ok := keys.Split("/p/", tc.key)
		if seg != tc.seg || el != tc.election || id != tc.id || ok != tc.ok {
			t.Errorf("Split(%q) = %q, %q, %q, %v; want %q, %q, %q, %v", tc.key, seg, el, id, ok, tc.seg, tc.election, tc.id, tc.ok)
		}
	}
}
