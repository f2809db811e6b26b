package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/internal/driver"
)

// TestAbandonAfterWin: a Campaign whose ctx ends just as it wins (its
// result waits in the campaign, unread) releases the leadership it won,
// and leaves alone one won by a later campaign.
func TestAbandonAfterWin(t *testing.T) {
	store := embeddedStore(t)
	e, err := New(store, Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ended, cancelEnded := context.WithCancel(ctx)
	cancelEnded()

	l, err := e.Campaign(ctx, "won")
	if err != nil {
		t.Fatal(err)
	}
	stale := &campaign{done: make(chan campaignResult, 1)}
	stale.done <- campaignResult{l: &Leadership{}} // another term's result
	if err := e.abandon("won", stale, ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("abandon = %v, want context.Canceled", err)
	}
	if l.Context().Err() != nil {
		t.Fatal("abandon of a campaign that did not win this term ended the leadership")
	}
	c := &campaign{done: make(chan campaignResult, 1)}
	c.done <- campaignResult{l: l} // this term's result, unread
	if err := e.abandon("won", c, ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("abandon = %v, want context.Canceled", err)
	}
	select {
	case <-l.Context().Done():
	case <-ctx.Done():
		t.Fatal("the leadership won just as the campaign's ctx ended was not released")
	}
	rec, err := driver.Of(store).Get(ctx, "won")
	if err == nil && rec.Exists() { // the delete may still be under way
		rec, err = waitKey(ctx, driver.Of(store), rec)
	}
	if err != nil || rec.Exists() {
		t.Fatalf("leader key after the release: %+v, %v; want absent", rec, err)
	}
}
