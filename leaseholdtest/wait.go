package leaseholdtest

import (
	"context"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
)

// WaitLeader waits until e holds election's leader key in the store (the
// key names e's current session), and returns what the store holds then:
// e's identity, its fencing token and its session. It fails the test if
// that does not happen within timeout. It watches the key through e (no
// polling), so e may still be campaigning, through Run or Campaign in
// another goroutine, when it is called.
func WaitLeader(t testing.TB, e *lease.LeaseElector, election string, timeout time.Duration) lease.LeaderInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ch, err := e.Observe(ctx, election)
	if err != nil {
		t.Fatalf("leaseholdtest: observe %q: %v", election, err)
	}
	var last lease.LeaderInfo
	for info := range ch {
		if info.Err != nil {
			t.Fatalf("leaseholdtest: observe %q: %v", election, info.Err)
		}
		if info.HasLeader() && info.Session == e.SessionID() {
			return info
		}
		last = info
	}
	t.Fatalf("leaseholdtest: %s does not lead %q after %v; the leader is %q (token %d)",
		e.Identity(), election, timeout, last.Identity, last.Token)
	return lease.LeaderInfo{}
}
