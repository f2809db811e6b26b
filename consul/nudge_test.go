package consul_test

import (
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
)

// Tests of Driver.Nudge against a real agent.

// testNudgeWakesWaiters: a Nudge of the entry ahead wakes a WatchSet's
// WatchEntry request on it, and leaves the entry in place, with its
// session, Token and place; nudging a missing entry is not an error.
func testNudgeWakesWaiters(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	s := newStore(t, c, consul.Options{})
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 30*time.Second)
	first, err := newSession(t, s).Enqueue(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	second, err := newSession(t, s).Enqueue(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	ahead, err := s.Ahead(ctx, el, second.Token)
	if err != nil || ahead.Token != first.Token {
		t.Fatalf("Ahead = %+v, %v; want the first entry %d", ahead, err, first.Token)
	}
	ws, ch := watch(t, s)
	ws.Wait(backends.WatchRequest{Kind: backends.WatchEntry, Tag: 1, Known: ahead})
	key := consul.QueueKeyOf(s, el, first.Owner)
	before, _, err := c.KV().Get(key, nil)
	if err != nil || before == nil {
		t.Fatalf("entry: %+v, %v", before, err)
	}
	if err := s.Nudge(ctx, ahead); err != nil {
		t.Fatalf("Nudge: %v", err)
	}
	if c := ch.next(t); c.Err != nil || c.Record.Token != ahead.Token {
		t.Fatalf("WatchSet answer %+v; want the entry %d", c, ahead.Token)
	}
	p, _, err := c.KV().Get(key, nil)
	if err != nil || p == nil || p.Session != before.Session || p.CreateIndex != before.CreateIndex ||
		p.LockIndex != before.LockIndex || p.ModifyIndex <= before.ModifyIndex {
		t.Fatalf("entry after Nudge: %+v, %v; want it as before (%+v), modified", p, err, before)
	}
	if again, err := s.Ahead(ctx, el, second.Token); err != nil || again.Token != first.Token || again.Owner != first.Owner {
		t.Fatalf("Ahead after Nudge = %+v, %v; want the first entry %d", again, err, first.Token)
	}
	if err := s.Nudge(ctx, ahead); err != nil {
		t.Fatalf("second Nudge: %v", err)
	}
	if p2, _, err := c.KV().Get(key, nil); err != nil || p2 == nil || p2.ModifyIndex <= p.ModifyIndex {
		t.Fatalf("entry after a second Nudge: %+v, %v; want it modified again", p2, err)
	}
	if err := s.Dequeue(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := s.Nudge(ctx, ahead); err != nil {
		t.Fatalf("Nudge of a dequeued entry: %v, want nil", err)
	}
}
