package lease

import (
	"context"
	"testing"
	"time"

	"github.com/leasehold/leasehold/internal/driver"
)

// TestCampaignAgainWhileCleaning: a Campaign made while an earlier one's
// cleanup is still under way on the elector is not refused as busy. Each
// case is set up in one turn of the loop, before any store call's result
// can arrive, so the cleanup is certainly under way when the second
// campaign begins.
func TestCampaignAgainWhileCleaning(t *testing.T) {
	store := embeddedStore(t)
	e, err := New(store, Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	held, err := e.Campaign(ctx, "held") // the session is live from here on
	if err != nil {
		t.Fatal(err)
	}

	// Canceled with its Create in flight, then campaigned for again: the
	// Create's outcome is the new campaign's.
	first, again := newTestCampaign(), newTestCampaign()
	e.do(func(now time.Time) {
		e.startCampaign(now, "x", first)
		_ = e.abandonNow(now, "x", first)
		if err := e.campaignBusy("x"); err != nil {
			t.Errorf("campaign of x while its canceled Create is in flight: %v, want not busy", err)
			return
		}
		e.startCampaign(now, "x", again)
	})
	lx := awaitCampaign(t, ctx, again)
	if r := won(first); r != nil {
		t.Fatalf("the canceled campaign got a leadership: %+v", r)
	}

	// Resigned with its Delete in flight, then campaigned for again: the
	// new term starts after the old one's release, at a greater token.
	next := newTestCampaign()
	e.do(func(now time.Time) {
		e.m.Resign(now, "x")
		e.step() // the leadership ends; the Delete goes out
		if err := e.campaignBusy("x"); err != nil {
			t.Errorf("campaign of x while its resigned term's Delete is in flight: %v, want not busy", err)
			return
		}
		e.startCampaign(now, "x", next)
	})
	if l := awaitCampaign(t, ctx, next); l.Token <= lx.Token {
		t.Fatalf("token %d after %d", l.Token, lx.Token)
	}

	// The same for held, with the waiting campaign abandoned before the
	// release: no campaign starts, and the key is released.
	dropped := newTestCampaign()
	released := make(chan error, 1) // answered at the term's Released, as a Resign is
	e.do(func(now time.Time) {
		e.callsOf("held").resigns = append(e.callsOf("held").resigns, released)
		e.m.Resign(now, "held")
		e.step()
		e.startCampaign(now, "held", dropped)
		_ = e.abandonNow(now, "held", dropped)
	})
	select {
	case <-released:
	case <-ctx.Done():
		t.Fatal("the resigned term of held was not released")
	}
	if err := held.Context().Err(); err == nil {
		t.Fatal("the resigned leadership did not end")
	}
	rec, err := driver.Of(store).Get(ctx, "held")
	if err == nil && rec.Exists() { // the delete may still be under way
		rec, err = waitKey(ctx, driver.Of(store), rec)
	}
	if err != nil || rec.Exists() {
		t.Fatalf("key of held after the release: %+v, %v; want absent", rec, err)
	}
	var active bool
	e.do(func(time.Time) { active = e.m.Active("held") })
	if active {
		t.Fatal("a campaign of held started after the one waiting for its release was abandoned")
	}
	if r := won(dropped); r != nil {
		t.Fatalf("the abandoned campaign got a leadership: %+v", r)
	}
}

func newTestCampaign() *campaign {
	return &campaign{done: make(chan campaignResult, 1), start: time.Now()}
}

func awaitCampaign(t *testing.T, ctx context.Context, c *campaign) *Leadership {
	t.Helper()
	select {
	case r := <-c.done:
		if r.err != nil {
			t.Fatalf("campaign: %v", r.err)
		}
		return r.l
	case <-ctx.Done():
		t.Fatal("campaign not won")
	}
	return nil
}
