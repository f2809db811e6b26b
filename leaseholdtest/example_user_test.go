package leaseholdtest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// publisher is a user's leader-only code: while it leads, a process
// publishes a report, stamped with its fencing token so that the receiver
// can refuse a stale leader's.
func publisher(out chan<- string) func(context.Context, *lease.Leadership) error {
	return func(ctx context.Context, l *lease.Leadership) error {
		if err := l.Valid(); err != nil { // right before the write
			return err
		}
		select {
		case out <- fmt.Sprintf("%s@%d", l.Identity, l.Token):
		case <-ctx.Done():
		}
		<-ctx.Done() // one report per term
		return nil
	}
}

// received waits for the next report.
func received(t *testing.T, out <-chan string) string {
	t.Helper()
	select {
	case r := <-out:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no report within 10 s")
		return ""
	}
}

// TestOnlyTheLeaderPublishes is how a user tests leader-only code: two
// processes run it on an in-process etcd; the leader's host crashes
// without resigning; the other takes over with a higher token.
func TestOnlyTheLeaderPublishes(t *testing.T) {
	srv := leaseholdtest.Etcd(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	out := make(chan string)
	start := func(name string) (*lease.LeaseElector, *leaseholdtest.Link) {
		link := srv.Connect(t) // one link per process, so that one can be cut
		e, err := lease.New(link.Store, lease.Options{TTL: 2 * time.Second, Identity: name})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { // bounded: a cut link never answers
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = e.Close(ctx)
		})
		wg.Go(func() { _ = e.Run(ctx, "reports", publisher(out)) })
		return e, link
	}

	a, linkA := start("a")
	first := leaseholdtest.WaitLeader(t, a, "reports", 10*time.Second)
	if got, want := received(t, out), fmt.Sprintf("a@%d", first.Token); got != want {
		t.Fatalf("published %s, want %s", got, want)
	}
	b, _ := start("b")

	linkA.Cut()                         // a's host crashes...
	srv.ExpireSession(t, first.Session) // ...and the store ends its session now
	next := leaseholdtest.WaitLeader(t, b, "reports", 10*time.Second)
	if got, want := received(t, out), fmt.Sprintf("b@%d", next.Token); got != want || next.Token <= first.Token {
		t.Fatalf("published %s after a@%d, want %s with a higher token", got, first.Token, want)
	}
	if got := srv.Leader(t, "reports"); got.Identity != "b" || got.Token != next.Token {
		t.Fatalf("leader %s@%d, want b@%d", got.Identity, got.Token, next.Token)
	}
}
