package lease

import (
	"context"
	"testing"
	"time"
)

// TestSlotsUrgentFirst: with every slot taken, a released slot goes to
// the urgent call waiting, though others asked before it, and then to the
// others in the order they asked; a waiter whose context ends leaves the
// line without a slot.
func TestSlotsUrgentFirst(t *testing.T) {
	s := newSlots(1)
	inLine := make(chan struct{})
	s.onWait = func() { inLine <- struct{}{} }
	ctx := context.Background()
	awaitWaiting := func(t *testing.T, s *slots, name string) {
		t.Helper()
		select {
		case <-inLine:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s is not waiting for a slot", name)
		}
	}
	if !s.acquire(ctx, false) {
		t.Fatal("the free slot was refused")
	}
	got := make(chan string, 3)
	wait := func(name string, urgent bool) {
		go func() {
			if s.acquire(ctx, urgent) {
				got <- name
			}
		}()
		awaitWaiting(t, s, name)
	}
	gone, cancel := context.WithCancel(ctx)
	left := make(chan bool)
	go func() { left <- s.acquire(gone, false) }()
	awaitWaiting(t, s, "cancelled")
	wait("first", false)
	wait("second", false)
	wait("urgent", true)
	cancel()
	if <-left {
		t.Fatal("a waiter whose context ended got a slot")
	}
	for _, want := range []string{"urgent", "first", "second"} {
		s.release()
		select {
		case name := <-got:
			if name != want {
				t.Fatalf("slot went to %s, want %s", name, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no slot given after a release; want %s's", want)
		}
	}
	s.release()
	if s.free != 1 {
		t.Fatalf("%d slots free after every release, want 1", s.free)
	}
}
