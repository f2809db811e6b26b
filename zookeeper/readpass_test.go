package zookeeper

import (
	"sync"
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// TestGetPassBetweenReads: a pass that commits between a Get's read of
// the pointer and its check of the holder's lead node (which the pass
// deletes) gives the key as passed, not absent: the key was never free.
func TestGetPassBetweenReads(t *testing.T) {
	f := newWatchFixture(t)
	el := uniqueName("get-pass-")
	held := f.create(t, el)
	join(t, f.s, f.ss, el, "target")
	var passed backends.Record
	var perr error
	var once sync.Once
	setHook(t, &testHookPointerRead, func(struct{}) {
		once.Do(func() {
			passed, perr = f.pss.End(f.ctx, backends.End{Election: el, Token: held.Token,
				To: &backends.Target{Session: f.ss.ID(), Value: []byte("target")}})
		})
	})
	got, err := f.s.Get(f.ctx, el)
	if err != nil || perr != nil {
		t.Fatalf("Get: %v; the pass between its reads: %v", err, perr)
	}
	if got.Owner != f.ss.ID() || got.Token != passed.Token || string(got.Value) != "target" {
		t.Fatalf("Get with a pass between its reads = %+v, want the key passed, %+v", got, passed)
	}
}
