package surface_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/surface"
	"github.com/leasehold/leasehold/zookeeper"
)

// TestAdapters: go doc of each adapter shows New and its Options, and no
// Store type of its own: New returns the portable *backends.Store, so
// neither the driver methods package lease calls (Get, Wait, NewSession,
// Enqueue, GuardedPut, ...) nor key helpers are shown.
func TestAdapters(t *testing.T) {
	for dir, want := range map[string][]string{
		"../../etcd":      nil,
		"../../consul":    nil,
		"../../zookeeper": nil,
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
		if slices.Contains(names, "Store") || !slices.Equal(methods, want) {
			t.Errorf("%s: go doc shows a Store type or its methods and fields %v, want none", dir, methods)
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

// TestNewReturnsPortableStore: what etcd.New, consul.New and
// zookeeper.New return is a *backends.Store, whose method set is Name,
// Limits and Close alone, with no exported field: no driver method
// (Get, Wait, NewSession, Enqueue, Watch, GuardedPut, ...) can be called
// on it, nor is it any of the driver's interfaces.
func TestNewReturnsPortableStore(t *testing.T) {
	for name, fn := range map[string]any{"etcd.New": etcd.New, "consul.New": consul.New, "zookeeper.New": zookeeper.New} {
		typ := reflect.TypeOf(fn).Out(0)
		if typ != reflect.TypeFor[*backends.Store]() {
			t.Errorf("%s returns %v, want *backends.Store", name, typ)
		}
		var methods []string
		for m := range typ.Methods() {
			methods = append(methods, m.Name)
		}
		if want := []string{"Close", "Limits", "Name"}; !slices.Equal(methods, want) {
			t.Errorf("%s returns %v with methods %v, want only %v", name, typ, methods, want)
		}
		if typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Struct {
			for f := range typ.Elem().Fields() {
				if f.IsExported() {
					t.Errorf("%s returns %v with the exported field %s", name, typ, f.Name)
				}
			}
		}
		for _, iface := range []reflect.Type{reflect.TypeFor[backends.Driver](), reflect.TypeFor[backends.Session]()} {
			if typ.Implements(iface) {
				t.Errorf("%s returns %v, which implements %v", name, typ, iface)
			}
		}
	}
}
