package main

import (
	"testing"

	"github.com/leasehold/leasehold/integration/history"
	"github.com/leasehold/leasehold/lease"
)

// TestEndings: an Unlead takes the first end marked at or after its
// leadership began, if it is earlier than the writer's notice; a resign's
// Handover marks nothing, and another election's marks do not count.
func TestEndings(t *testing.T) {
	n := newEndings()
	before := history.Now()
	n.Leading("a", false) // an earlier term's end
	from := history.Now()
	n.Leading("a", true)
	n.Handover("a", lease.CauseResign)
	n.Leading("b", false)
	noticed := history.Now()
	if got := n.end("a", from, noticed); got != noticed {
		t.Errorf("end with no mark since the start = %d, want the notice %d", got, noticed)
	}
	n.Handover("a", lease.CausePreempt)
	marked := n.at["a"][len(n.at["a"])-1]
	n.Leading("a", false)
	late := history.Now()
	if got := n.end("a", from, late); got != marked {
		t.Errorf("end = %d, want the first mark since the start, %d", got, marked)
	}
	if got := n.end("a", from, from); got != from {
		t.Errorf("end with a notice before the mark = %d, want the notice %d", got, from)
	}
	if got := n.end("a", before, late); got >= from {
		t.Errorf("end of a term begun before the earlier end = %d, want that end, before %d", got, from)
	}
	for range 2 * keptEnds {
		n.Leading("c", false)
	}
	if len(n.at["c"]) != keptEnds {
		t.Errorf("kept %d marks, want %d", len(n.at["c"]), keptEnds)
	}
}
