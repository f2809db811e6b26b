package surface_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/leasehold/leasehold/internal/surface"
)

// TestAdapters: go doc of each adapter shows New and, of Store's methods,
// only those a user calls (zookeeper's Close); never the driver methods
// package lease calls (Get, Wait, NewSession, Enqueue, GuardedPut, ...)
// nor key helpers.
func TestAdapters(t *testing.T) {
	for dir, want := range map[string][]string{
		"../../etcd":      nil,
		"../../consul":    nil,
		"../../zookeeper": {"Store.Close"},
	} {
		names, err := surface.Of(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(names, "New") || !slices.Contains(names, "Options") {
			t.Errorf("%s: go doc shows %v, want New and Options among them", dir, names)
		}
		var methods []string
		for _, n := range names {
			if strings.HasPrefix(n, "Store.") {
				methods = append(methods, n)
			}
		}
		if !slices.Equal(methods, want) {
			t.Errorf("%s: go doc shows Store's methods and fields %v, want %v", dir, methods, want)
		}
	}
}

// TestOfShowsPromotedMethods: the methods a struct gets from an embedded
// unexported struct pointer are shown, as go doc shows them, so
// TestAdapters catches that shape.
func TestOfShowsPromotedMethods(t *testing.T) {
	names, err := surface.Of("testdata/embedded")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names, "Store.Get") {
		t.Fatalf("Of = %v, want Store.Get promoted from *store", names)
	}
}
