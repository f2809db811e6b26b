package etcdtest

import (
	"context"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/keys"
)

// StoreAt returns a Store on a client of its own with the prefix "/" +
// name + "/".
func (h *Harness) StoreAt(t testing.TB, name string) *backends.Store {
	s, err := etcd.New(h.Dial(t), etcd.Options{Prefix: "/" + name + "/"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// LayoutAt reads the layout marker of StoreAt's prefix for name.
func (h *Harness) LayoutAt(t testing.TB, name string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := h.Dial(t).Get(ctx, keys.Layout("/"+name+"/"))
	if err != nil {
		t.Fatalf("etcdtest: read the layout marker: %v", err)
	}
	if len(resp.Kvs) == 0 {
		return "", false
	}
	return string(resp.Kvs[0].Value), true
}

// SetLayoutAt writes the layout marker of StoreAt's prefix for name.
func (h *Harness) SetLayoutAt(t testing.TB, name, value string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := h.Dial(t).Put(ctx, keys.Layout("/"+name+"/"), value); err != nil {
		t.Fatalf("etcdtest: write the layout marker: %v", err)
	}
}
