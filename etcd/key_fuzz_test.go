package etcd_test

import (
	"context"
	"path"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
)

// FuzzKey: the key of a valid election name is under the prefix, gives
// the name back, and is left alone by path normalization, so no name can
// reach a key outside the prefix or another election's key.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"a", "jobs/nightly", "p/b/c", "p.b", "...", "a/.../b", "..", "a/../b", "a//b", "/a"} {
		f.Add(s)
	}
	c := clientv3.NewCtxClient(context.Background())
	var stores []*etcd.Store
	for _, prefix := range []string{"", "/jobs/", "/a/b/"} {
		s, err := etcd.New(c, etcd.Options{Prefix: prefix})
		if err != nil {
			f.Fatal(err)
		}
		stores = append(stores, s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if backends.ValidateElection(name) != nil {
			return
		}
		for _, s := range stores {
			key := s.Key(name)
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
