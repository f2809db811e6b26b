package consultest

import (
	"testing"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/internal/keys"
)

// StoreAt returns a Store on a client of its own with the prefix name +
// "/".
func (h *Harness) StoreAt(t testing.TB, name string) *backends.Store {
	t.Helper()
	s, err := consul.New(h.Client(t), consul.Options{Prefix: name + "/"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// LayoutAt reads the layout marker of StoreAt's prefix for name.
func (h *Harness) LayoutAt(t testing.TB, name string) (string, bool) {
	t.Helper()
	p, _, err := h.Client(t).KV().Get(keys.Layout(name+"/"), &api.QueryOptions{RequireConsistent: true})
	if err != nil {
		t.Fatalf("consultest: read the layout marker: %v", err)
	}
	if p == nil {
		return "", false
	}
	return string(p.Value), true
}

// SetLayoutAt writes the layout marker of StoreAt's prefix for name.
func (h *Harness) SetLayoutAt(t testing.TB, name, value string) {
	t.Helper()
	if _, err := h.Client(t).KV().Put(&api.KVPair{Key: keys.Layout(name + "/"), Value: []byte(value)}, nil); err != nil {
		t.Fatalf("consultest: write the layout marker: %v", err)
	}
}
