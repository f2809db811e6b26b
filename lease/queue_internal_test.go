package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// TestEnqueueAfterLeave: an enqueue that runs after its election left the
// queue (its wait was withdrawn before the goroutine carrying it out got
// to the enqueue) makes no entry. One would stay until the session ends,
// holding up every waiter behind it.
func TestEnqueueAfterLeave(t *testing.T) {
	store := embeddedStore(t)
	var q backends.Queuer = store
	e, err := New(store, Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	e.queue = newQueue(q) // queue mode, whatever the option is called; the loop reads it only after do
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.AwaitSession(ctx); err != nil {
		t.Fatal(err)
	}
	var s backends.Session
	e.do(func(time.Time) {
		s = e.liveSession()
		e.queue.want("q")    // the wait begins
		e.leaveQueue("q", s) // and is withdrawn before its goroutine runs
	})
	if _, err := e.enqueue(s, "q"); !errors.Is(err, context.Canceled) {
		t.Fatalf("enqueue after leaving: %v, want context.Canceled", err)
	}
	other, err := store.NewSession(ctx, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	later, err := q.Enqueue(ctx, other, "q")
	if err != nil {
		t.Fatal(err)
	}
	if ahead, err := q.Ahead(ctx, "q", later.Token); err != nil || ahead.Exists() {
		t.Fatalf("entry ahead of a later one: %+v, %v; want none", ahead, err)
	}
}
