package leasetest

import (
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// testProclaim: a leader's proclaimed value reaches an observer under the
// same token, and Leader reads it; once the leadership ended, Proclaim
// fails with ErrLost and writes nothing.
func (s *suite) testProclaim(t *testing.T) {
	el := backendtest.Election(t)
	e := s.mustElector(t, "proclaimer")
	l := campaign(t, e, el)
	ctx := backendtest.Context(t, 30*time.Second)
	infos, err := s.mustElector(t, "observer").Observe(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	if i := nextInfo(t, infos); i.Token != l.Token || i.Value != "" {
		t.Fatalf("first LeaderInfo %+v, want token %d and no value", i, l.Token)
	}
	for _, v := range []string{"addr=10.0.0.1:80", "addr=10.0.0.2:80"} {
		if err := l.Proclaim(ctx, v); err != nil {
			t.Fatalf("Proclaim(%q): %v", v, err)
		}
		if i := nextInfo(t, infos); i.Token != l.Token || i.Value != v || i.Identity != l.Identity {
			t.Fatalf("after Proclaim(%q): LeaderInfo %+v, want token %d, identity %s, value %q", v, i, l.Token, l.Identity, v)
		}
	}
	if i, err := e.Leader(ctx, el); err != nil || i.Value != "addr=10.0.0.2:80" {
		t.Fatalf("Leader = %+v, %v; want the value last proclaimed", i, err)
	}
	resign(t, l)
	if err := l.Proclaim(ctx, "late"); !errors.Is(err, lease.ErrLost) {
		t.Fatalf("Proclaim after Resign: %v, want ErrLost", err)
	}
	if i := nextInfo(t, infos); i.HasLeader() {
		t.Fatalf("after Resign and a late Proclaim: LeaderInfo %+v, want no leader", i)
	}
}

// nextInfo takes the next LeaderInfo, within 10 s.
func nextInfo(t *testing.T, infos <-chan lease.LeaderInfo) lease.LeaderInfo {
	t.Helper()
	select {
	case i, ok := <-infos:
		if !ok {
			t.Fatal("Observe closed its channel")
		}
		return i
	case <-time.After(10 * time.Second):
		t.Fatal("no LeaderInfo within 10s")
	}
	return lease.LeaderInfo{}
}
