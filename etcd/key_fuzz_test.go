package etcd_test

import (
	"context"
	"path"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/keys"
)

// FuzzKey: the key of a valid election name is under the prefix, gives
// the name back, and is left alone by path normalization, so no name can
// reach a key outside the prefix or another election's key.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"a", "jobs/nightly", "p/b/c", "p.b", "...", "a/.../b", "..", "a/../b", "a//b", "/a"} {
		f.Add(s)
	}
	// The prefixes etcd.New accepts: the default, and any ending in "/".
	prefixes := []string{etcd.DefaultPrefix, "/jobs/", "/a/b/"}
	for _, p := range prefixes {
		if _, err := etcd.New(clientv3.NewCtxClient(context.Background()), etcd.Options{Prefix: p}); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, name string) {
		if backends.ValidateElection(name) != nil {
			return
		}
		for _, p := range prefixes {
			key := keys.Leader(p, name)
			prefix := strings.TrimSuffix(key, name)
			if !strings.HasSuffix(prefix, "/") || prefix+name != key {
				t.Fatalf("Key(%q) = %q: not prefix/ + name", name, key)
			}
			if path.Clean(key) != key || !strings.HasPrefix(path.Clean(key), prefix) {
				t.Fatalf("Key(%q) = %q: path.Clean makes it %q", name, key, path.Clean(key))
			}
		}
	})
}
