package lease

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRequestHandover: a leader that follows its candidate list honours a
// request from outside the election, and the requester gets the named
// candidate's term; one that does not follow it says so in its record,
// and a request to it fails at once with errors.ErrUnsupported instead of
// waiting out its context, and leaves it leading.
func TestRequestHandover(t *testing.T) {
	store := embeddedStore(t)
	for _, follow := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		el := map[bool]string{true: "request/follow", false: "request/deaf"}[follow]
		leader, l := leading(t, ctx, store, el, Options{Identity: "leader", FollowRoster: follow})
		next := testElector(t, store, Options{Identity: "next"})
		go func() { _, _ = next.Campaign(ctx, el) }()
		requester := testElector(t, store, Options{Identity: "requester"})
		awaitCandidates(t, ctx, requester, el, 2)
		info, err := requester.RequestHandover(ctx, el, "next")
		switch {
		case follow && (err != nil || info.Identity != "next" || info.Token <= l.Token):
			t.Fatalf("request to a following leader: %+v, %v; want next leading with a higher token than %d", info, err, l.Token)
		case follow && !errors.Is(l.Err(), ErrHandover):
			t.Fatalf("the following leader's leadership ended with %v, want ErrHandover", l.Err())
		case !follow && !errors.Is(err, errors.ErrUnsupported):
			t.Fatalf("request to a leader that does not follow its list: %+v, %v; want errors.ErrUnsupported", info, err)
		case !follow && l.Err() != nil:
			t.Fatalf("the refused request ended the leadership: %v", l.Err())
		}
		for _, e := range []*LeaseElector{requester, next, leader} {
			_ = e.Close(ctx)
		}
		cancel()
	}
}
