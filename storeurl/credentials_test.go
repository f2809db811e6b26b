package storeurl

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// secret is a password no other part of a test's output contains.
const secret = "Pw-7f3a9c1e"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		raw, scheme, user, password, shown string
		hosts                              []string
	}{
		{"etcd://h1:2379,h2:2379/jobs", "etcd", "", "", "etcd://h1:2379,h2:2379/jobs", []string{"h1:2379", "h2:2379"}},
		{"etcd://alice@h:2379/x", "etcd", "alice", "", "etcd://alice@h:2379/x", []string{"h:2379"}},
		{"etcd://alice:" + secret + "@h:2379/x", "etcd", "alice", secret, "etcd://alice:xxxxx@h:2379/x", []string{"h:2379"}},
		// Percent-encoded, or typed raw: '@', '/' and ':' in a password.
		{"etcds://alice:p%40ss%2Fw%3Ard@h:2379/x", "etcds", "alice", "p@ss/w:rd", "etcds://alice:xxxxx@h:2379/x", []string{"h:2379"}},
		{"etcd://alice:p@ss/w:rd@h:2379/x", "etcd", "alice", "p@ss/w:rd", "etcd://alice:xxxxx@h:2379/x", []string{"h:2379"}},
		{"zk://bob:pw@z1:2181,z2:2181/lh?tick=200ms", "zk", "bob", "pw", "zk://bob:xxxxx@z1:2181,z2:2181/lh?tick=200ms", []string{"z1:2181", "z2:2181"}},
		{"consul://127.0.0.1:8500/lh?session-node=n1", "consul", "", "", "consul://127.0.0.1:8500/lh?session-node=n1", []string{"127.0.0.1:8500"}},
	} {
		p, err := Parse(c.raw)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.raw, err)
			continue
		}
		if p.Scheme != c.scheme || p.Username != c.user || p.Password != c.password ||
			strings.Join(p.Hosts, " ") != strings.Join(c.hosts, " ") || p.String() != c.shown {
			t.Errorf("Parse(%q) = %s %q %q %q %q, want %s %q %q %q %q", c.raw, p.Scheme, p.Username, p.Password, p.Hosts, p.String(),
				c.scheme, c.user, c.password, c.hosts, c.shown)
		}
	}
}

// TestParseRejects: each error names what is wrong and wraps ErrInvalid.
func TestParseRejects(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{"etcd://h:2379/x?tock=2s", `unknown query parameter "tock": etcd takes none`},
		{"zk://h:2181/x?tock=2s", `unknown query parameter "tock": zk takes tick`},
		{"consul://h:8500/x?tick=2s", `consul takes session-node`},
		{"zk://h:2181/x?tick=1s&tick=2s", `query parameter "tick" given 2 times`},
		{"zk://h:2181/x?tick=", `query parameter "tick" has no value`},
		{"zk://h:2181/x?tick=%zz", `query`},
		{"etcd://h:2379/x#frag", "fragment"},
		{"etcd:h:2379", "want SCHEME://"},
		{"redis://h:6379", `unknown scheme "redis"`},
		{"etcd:///x", "no host"},
		{"etcd://:pw@h:2379/x", "without a user"},
		{"etcd://%zz:pw@h:2379/x", `user "%zz"`},
		{"etcd://alice:%zz@h:2379/x", "percent-encoding"},
	} {
		_, err := Parse(c.raw)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, want an ErrInvalid naming %q", c.raw, err, c.want)
		}
	}
}

// TestCredentialRules: a credential given twice, or to a store that does
// not take it, fails Open before any connection, naming the option.
func TestCredentialRules(t *testing.T) {
	for _, c := range []struct {
		raw  string
		opts Options
		want string
	}{
		{"consul://alice:pw@h:8500/x", Options{}, "Consul takes an ACL token, not a user"},
		{"consul://h:8500/x", Options{Username: "a", Password: "b"}, "Consul takes an ACL token"},
		{"etcd://h:2379/x", Options{Token: "t"}, "is for consul URLs"},
		{"zk://h:2181/x", Options{Token: "t"}, "is for consul URLs"},
		{"etcd://h:2379/x", Options{ZKDigest: "a:b"}, "is for zk URLs"},
		{"etcd://alice@h:2379/x", Options{Username: "bob"}, "user given twice"},
		{"etcd://alice:pw@h:2379/x", Options{Password: "pw2"}, "password given twice"},
		{"etcd://h:2379/x", Options{Password: "pw"}, "a password without a user"},
		{"zk://alice@h:2181/x", Options{}, `user "alice" has no password`},
		{"zk://alice:pw@h:2181/x", Options{ZKDigest: "a:b"}, "give the credentials once"},
	} {
		o, err := Open(context.Background(), c.raw, c.opts)
		if err == nil {
			o.Close()
			t.Errorf("Open(%q, %+v) succeeded, want an error about %s", c.raw, c.opts, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("Open(%q, %+v) = %v, want an ErrInvalid naming %q", c.raw, c.opts, err, c.want)
		}
	}
}

// TestErrorsHidePassword: whatever is wrong with a URL, the error shows
// its password as xxxxx, even where net/url would echo the input whole.
func TestErrorsHidePassword(t *testing.T) {
	ctx := context.Background()
	for _, raw := range []string{
		"etcd://alice:" + secret + "@h:2379:bad/x",
		"etcd://alice:" + secret + "/more@h:2379/x?tock=1",
		"etcd://alice:" + secret + "%zz@h:2379/x",
		"etcd://alice:" + secret + "@/x",
		"etcd://alice:" + secret + "@[::1/x",
		"etcd://alice:" + secret + "@h\x7f:2379/x",
		"redis://alice:" + secret + "@h:6379",
		"consul://alice:" + secret + "@h:8500/x",
		"zk://alice:" + secret + "@h:2181/x?tick=soon",
		"zk://alice:" + secret + "@h:2181/bad//prefix",
		"etcd:alice:" + secret + "@h:2379",
		"//alice:" + secret + "@h:2379",
		"alice:" + secret + "://x@h:2379",
		"etcd://alice:" + secret + "@h:2379/x#frag",
	} {
		_, perr := Parse(raw)
		for _, opts := range []Options{{}, {Password: "other"}} {
			o, err := Open(ctx, raw, opts)
			if err == nil {
				o.Close()
				t.Errorf("Open(%q, %+v) succeeded", raw, opts)
				continue
			}
			for _, e := range []error{perr, err} {
				if e != nil && strings.Contains(e.Error(), secret) {
					t.Errorf("error for %q shows the password: %v", raw, e)
				}
			}
			t.Logf("%v", err)
		}
	}
}

// TestCredentialsReachTheOpeners: user info becomes etcd's user and
// password, or ZooKeeper's digest; Options fill in what the URL leaves out.
func TestCredentialsReachTheOpeners(t *testing.T) {
	for _, c := range []struct {
		raw                 string
		in                  Options
		user, password, zkd string
	}{
		{"etcd://alice:p%40w@h:2379/x", Options{}, "alice", "p@w", ""},
		{"etcd://alice@h:2379/x", Options{Password: "fromfile"}, "alice", "fromfile", ""},
		{"etcd://h:2379/x", Options{Username: "bob", Password: "pw"}, "bob", "pw", ""},
		{"zk://alice:p%3Aw@h:2181/x", Options{}, "", "", "alice:p:w"},
		{"zk://alice@h:2181/x", Options{Password: "fromfile"}, "", "", "alice:fromfile"},
		{"zk://h:2181/x", Options{Username: "bob", Password: "pw"}, "", "", "bob:pw"},
		{"zk://h:2181/x", Options{ZKDigest: "carol:pw"}, "", "", "carol:pw"},
	} {
		p, err := Parse(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.credentials(c.in)
		if err != nil || out.Username != c.user || out.Password != c.password || out.ZKDigest != c.zkd {
			t.Errorf("%s with %+v: %q %q %q, %v; want %q %q %q", c.raw, c.in, out.Username, out.Password, out.ZKDigest, err,
				c.user, c.password, c.zkd)
		}
	}
}
