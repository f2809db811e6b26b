package backendtest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver"
)

// runLayoutTests runs the contract of the layout marker (backends.Layout)
// if the harness can reach it (Layouter), and says so loudly if not.
func runLayoutTests(t *testing.T, h Harness) {
	lh, ok := h.(Layouter)
	if !ok {
		t.Skipf("harness %T is not a backendtest.Layouter: layout marker tests not run", h)
	}
	tests := map[string]func(*testing.T, Layouter){
		"Claim":   testLayoutClaim,
		"Foreign": testLayoutForeign,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, lh)
		})
	}
}

// layoutName returns a prefix name unique to the test.
func layoutName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "layout-" + hex.EncodeToString(b)
}

// testLayoutClaim: a Store that only reads accepts an absent marker and
// writes none; two Stores whose first sessions race both get one, and the
// marker then holds a version.
func testLayoutClaim(t *testing.T, h Layouter) {
	name := layoutName()
	mustGet(t, driver.Of(h.StoreAt(t, name)), "a")
	if v, ok := h.LayoutAt(t, name); ok {
		t.Fatalf("after a Get alone the layout marker holds %q, want none", v)
	}
	a, b := driver.Of(h.StoreAt(t, name)), driver.Of(h.StoreAt(t, name))
	var wg sync.WaitGroup
	for _, s := range []backends.Driver{a, b} {
		wg.Go(func() {
			ss, err := s.NewSession(Context(t, 10*time.Second), ttl(s))
			if err != nil {
				t.Errorf("NewSession racing another Store's first: %v", err)
				return
			}
			_ = ss.Close(Context(t, 10*time.Second))
		})
	}
	wg.Wait()
	v, ok := h.LayoutAt(t, name)
	if n, err := strconv.Atoi(v); !ok || err != nil || n < 1 {
		t.Fatalf("after the first sessions the layout marker is %q (exists %v), want a version", v, ok)
	}
}

// testLayoutForeign: a marker of another version fails a Store's
// NewSession, Get and List with ErrLayout naming
// the version found and the one a Store writes (as a first session wrote
// it under another prefix), every time, and leaves the marker as it was.
func testLayoutForeign(t *testing.T, h Layouter) {
	own := layoutName()
	newSession(t, driver.Of(h.StoreAt(t, own)))
	mine, _ := h.LayoutAt(t, own)
	name := layoutName()
	h.SetLayoutAt(t, name, "999")
	s := driver.Of(h.StoreAt(t, name))
	for range 2 {
		_, err := s.NewSession(Context(t, 10*time.Second), ttl(s))
		checkLayoutErr(t, "NewSession", mine, err)
		_, err = s.Get(Context(t, 10*time.Second), "a")
		checkLayoutErr(t, "Get", mine, err)
		_, _, err = s.List(Context(t, 10*time.Second), "a")
		checkLayoutErr(t, "List", mine, err)
	}
	if v, _ := h.LayoutAt(t, name); v != "999" {
		t.Fatalf("the foreign layout marker holds %q after the refusals, want 999", v)
	}
}

// checkLayoutErr checks that err wraps ErrLayout and names the version
// found (999) and mine, the one a Store writes.
func checkLayoutErr(t *testing.T, call, mine string, err error) {
	t.Helper()
	if !errors.Is(err, backends.ErrLayout) {
		t.Fatalf("%s on a prefix of layout version 999: %v, want ErrLayout", call, err)
	}
	if !strings.Contains(err.Error(), `"999"`) || !strings.Contains(err.Error(), "version "+mine) {
		t.Fatalf("%s: %v: want the versions found (999) and written (%s) named", call, err, mine)
	}
}
