package consul_test

import (
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/consul"
)

// FuzzKey: the KV key of a valid election name is under the prefix, gives
// the name back, and reaches the agent unchanged: the api package puts it
// in the request path, which neither URL escaping nor path normalization
// (an HTTP router's redirect of "/a/../b") alters.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"a", "jobs/nightly", "p/b/c", "p.b", "...", "a/.../b", "..", "a/../b", "a//b", "a b", "a%2Fb"} {
		f.Add(s)
	}
	c, err := api.NewClient(api.DefaultConfig())
	if err != nil {
		f.Fatal(err)
	}
	var stores []consul.Driver
	for _, prefix := range []string{"", "jobs/", "a/b/"} {
		s, err := consul.New(c, consul.Options{Prefix: prefix})
		if err != nil {
			f.Fatal(err)
		}
		stores = append(stores, consul.DriverOf(s))
	}
	f.Fuzz(func(t *testing.T, name string) {
		if backends.ValidateElection(name) != nil {
			return
		}
		for _, s := range stores {
			key := consul.KeyOf(s, name)
			prefix := strings.TrimSuffix(key, name)
			if !strings.HasSuffix(prefix, "/") || strings.HasPrefix(prefix, "/") || prefix+name != key {
				t.Fatalf("Key(%q) = %q: not prefix/ + name", name, key)
			}
			p := "/v1/kv/" + key
			if u := (&url.URL{Path: p}); u.EscapedPath() != p || path.Clean(p) != p {
				t.Fatalf("Key(%q) = %q: sent as %q, cleaned to %q", name, key, u.EscapedPath(), path.Clean(p))
			}
		}
	})
}
