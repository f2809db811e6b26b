package leasetest

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// testObserveWhileCampaigning: an elector that waits to lead an election
// and observes it twice at once, the observers knowing different states,
// wins it when the leader resigns, and each observer sees that leader:
// the observers' waits and the campaign's do not replace one another.
func (s *suite) testObserveWhileCampaigning(t *testing.T) {
	a, _ := s.elector(t, "alice")
	b, _ := s.elector(t, "bob")
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 60*time.Second)
	first, err := b.Observe(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	observed(t, first, "")
	la := campaign(t, a, el)
	observed(t, first, "alice") // first now waits from alice's term
	second, err := b.Observe(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	observed(t, second, "alice")
	won := campaignAsync(t, b, el)
	resign(t, la)
	lb := awaitWin(t, won, 20*time.Second).l
	for i, ch := range []<-chan lease.LeaderInfo{first, second} {
		if info := observedUntil(t, ch, "bob"); info.Token != lb.Token {
			t.Fatalf("observer %d saw %+v, want bob's token %d", i, info, lb.Token)
		}
	}
}

// observed fails t unless the next value on ch, within 10 s, has leader
// want ("" for none).
func observed(t *testing.T, ch <-chan lease.LeaderInfo, want string) lease.LeaderInfo {
	t.Helper()
	select {
	case info, ok := <-ch:
		if !ok || info.Identity != want || info.HasLeader() != (want != "") {
			t.Fatalf("observed %+v (open %v), want leader %q", info, ok, want)
		}
		return info
	case <-time.After(10 * time.Second):
		t.Fatalf("no observation within 10s, want leader %q", want)
	}
	return lease.LeaderInfo{}
}

// observedUntil reads ch until a value has leader want, failing t if none
// does within 20 s: states in between ("no leader") may be skipped or not.
func observedUntil(t *testing.T, ch <-chan lease.LeaderInfo, want string) lease.LeaderInfo {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case info, ok := <-ch:
			if !ok {
				t.Fatalf("Observe closed its channel, want leader %q", want)
			}
			if info.Identity == want && info.HasLeader() {
				return info
			}
		case <-deadline:
			t.Fatalf("leader %q not observed within 20s", want)
		}
	}
}
