package zookeeper

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// TestPassTellsTargetFirst: a pass's multi writes the target's queue
// entry before the pointer, so a connection that watches both hears of
// the entry first: the server sends a multi's notifications in the order
// of its ops, and the target waits on its entry, the holder on the
// pointer.
func TestPassTellsTargetFirst(t *testing.T) {
	s, a, b, held := heldByA(t, "/pass-order-")
	ctx := testCtx(t)
	entry, err := b.Enqueue(ctx, "el")
	if err != nil {
		t.Fatal(err)
	}
	join(t, s, b, "el", "b")
	epath, _ := s.entryPath(entry)
	events := make(chan zk.Event, 16)
	c, _, err := zk.Connect(s.servers, 4*time.Second, zk.WithLogger(nopLogger{}),
		zk.WithEventCallback(func(ev zk.Event) {
			if ev.Type != zk.EventSession {
				events <- ev
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, p := range []string{s.leaderPath("el"), epath} {
		if _, _, _, err := c.GetW(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.End(ctx, backends.End{Election: "el", Token: held.Token,
		To: &backends.Target{Session: b.ID(), Entry: entry.Token, Value: []byte("b")}}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if ev.Path != epath || ev.Type != zk.EventNodeDataChanged {
			t.Fatalf("first notification of the pass: %s on %s, want the data of the target's entry %s", ev.Type, ev.Path, epath)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification of the pass within 10 s")
	}
}

// TestPassStaleTermGoneEntry: a pass whose Store last saw the pointer at
// its term, after the term ended, to a target whose entry is gone, fails
// with ErrNotFound, as every store's does (the multi, which writes the
// entry first, fails on it before the pointer's version shows the term
// over: End reads the pointer before it blames the target).
func TestPassStaleTermGoneEntry(t *testing.T) {
	s, a, b, held := heldByA(t, "/pass-stale-")
	ctx := testCtx(t)
	entry, err := b.Enqueue(ctx, "el")
	if err != nil {
		t.Fatal(err)
	}
	join(t, s, b, "el", "b")
	if err := s.Dequeue(ctx, entry); err != nil {
		t.Fatal(err)
	}
	// The term ends behind the Store's back: the pointer is emptied by
	// another client, which no read of the Store's sees.
	if _, err := b.(*session).l.conn.Set(s.leaderPath("el"), nil, -1); err != nil {
		t.Fatal(err)
	}
	_, err = a.End(ctx, backends.End{Election: "el", Token: held.Token,
		To: &backends.Target{Session: b.ID(), Entry: entry.Token, Value: []byte("b")}})
	if !errors.Is(err, backends.ErrNotFound) || errors.Is(err, backends.ErrNoCandidate) {
		t.Fatalf("pass of an ended term to a gone entry: %v, want ErrNotFound alone", err)
	}
}
