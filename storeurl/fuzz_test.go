package storeurl

import (
	"strings"
	"testing"
)

// marker starts every fuzzed password, so that it can be looked for.
const marker = "Zq9"

// FuzzParse: for any scheme, user, password and rest of URL, Parse never
// panics; neither its error nor the parsed URL's String contains the
// password; and a URL that parses gives back the user and password as
// typed when they hold nothing that URL encoding changes.
func FuzzParse(f *testing.F) {
	for _, c := range []struct {
		scheme      byte
		user, pw, r string
	}{
		{0, "alice", "pw", "h:2379/x"},
		{1, "bob", "p@ss/w:rd", "z1:2181,z2:2181/lh?tick=200ms"},
		{2, "", "pw", "h:8500/x?session-node=n1"},
		{0, "a", "%zz", "h:2379/x"},
		{0, "a", "pw", "h:2379:bad/x"},
		{0, "a", "pw/more", "h:2379/x?tock=1#frag"},
		{3, "a", "pw", "[::1/x"},
		{0, "a:b", "c@d", "@h/x"},
		{0, "a", "pw", "h\x7f/x"},
		{5, "a", "x://y", "h"}, // no scheme: the first "://" is the password's
	} {
		f.Add(c.scheme, c.user, c.pw, c.r)
	}
	schemes := []string{"etcd://", "zk://", "consul://", "redis://", "etcd:", "", "etcds://"}
	f.Fuzz(func(t *testing.T, scheme byte, user, password, rest string) {
		if strings.Contains(user+rest, marker) {
			return
		}
		pw := marker + password
		raw := schemes[int(scheme)%len(schemes)] + user + ":" + pw + "@" + rest
		p, err := Parse(raw)
		if err != nil {
			if strings.Contains(err.Error(), pw) {
				t.Fatalf("Parse(%q): error shows the password: %v", raw, err)
			}
			return
		}
		if strings.Contains(p.String(), pw) {
			t.Fatalf("Parse(%q).String() = %q shows the password", raw, p.String())
		}
		plain := !strings.ContainsAny(user, ":%@") && !strings.Contains(pw, "%") && !strings.Contains(rest, "@")
		if plain && (p.Username != user || p.Password != pw) {
			t.Fatalf("Parse(%q): user %q password %q, want %q %q", raw, p.Username, p.Password, user, pw)
		}
	})
}
