package lease

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// TestFollowedRosterReadsTakeSlots: the roster reads of leaders that
// follow their rosters in the watch set take the elector's slots for
// calls (maxElectionCalls), so that elections won together do not send
// their reads all at once, ahead of the session's renewals. On embedded
// etcd, each List held until the test lets it go: with 2×maxElectionCalls
// elections campaigning, maxElectionCalls Lists wait and no more start.
func TestFollowedRosterReadsTakeSlots(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g := &gatedLists{Driver: embeddedDriver(t), gate: make(chan struct{}), arrived: make(chan struct{}, 4*maxElectionCalls)}
	// A 10 s TTL: RequestTimeout, which ends a held List, is 3.7 s.
	e, err := New(backends.NewStore(g), Options{Identity: "many", TTL: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close(context.Background()) }()
	const n = 2 * maxElectionCalls
	won := make(chan error, n)
	for i := range n {
		go func() { _, err := e.Campaign(ctx, fmt.Sprintf("slots/%d", i)); won <- err }()
	}
	for range maxElectionCalls {
		select {
		case <-g.arrived:
		case <-ctx.Done():
			t.Fatalf("%d roster reads held, want %d", g.held.Load(), maxElectionCalls)
		}
	}
	select { // a read beyond the slots would come within a round trip or so
	case <-g.arrived:
		t.Fatalf("%d roster reads in flight at once, want at most %d (maxElectionCalls)", g.held.Load(), maxElectionCalls)
	case <-time.After(time.Second):
	}
	close(g.gate)
	for range n {
		if err := <-won; err != nil {
			t.Fatalf("a campaign after the reads went on: %v", err)
		}
	}
}

// gatedLists is an etcd Store whose Roster.List calls wait until gate is
// closed, each first sending on arrived; held counts those waiting.
type gatedLists struct {
	backends.Driver
	gate    chan struct{}
	arrived chan struct{}
	held    atomic.Int64
}

func (g *gatedLists) List(ctx context.Context, election string) ([]backends.Record, uint64, error) {
	g.held.Add(1)
	select { // never blocks: the reads after the gate opens need no telling
	case g.arrived <- struct{}{}:
	default:
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
	}
	g.held.Add(-1)
	return g.Driver.List(ctx, election)
}
