package lease

import (
	"context"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// queueWatched is a store whose sessions send each entry they make on
// enqueued.
type queueWatched struct {
	backends.Driver
	enqueued chan backends.Record
}

func (s queueWatched) NewSession(ctx context.Context, ttl time.Duration) (backends.Session, error) {
	ss, err := s.Driver.NewSession(ctx, ttl)
	if err != nil {
		return nil, err
	}
	return enqueuing{ss, s.enqueued}, nil
}

// enqueuing is a session that sends each entry it makes on enqueued.
type enqueuing struct {
	backends.Session
	enqueued chan backends.Record
}

func (s enqueuing) Enqueue(ctx context.Context, election string) (backends.Record, error) {
	rec, err := s.Session.Enqueue(ctx, election)
	if err == nil {
		s.enqueued <- rec
	}
	return rec, err
}

// TestQueueOrder: waiters lead in the order they took their places in
// line, and leave no entry behind: a candidate that joins the line after
// them leads after the last of them resigns.
func TestQueueOrder(t *testing.T) {
	q := queueWatched{Driver: embeddedDriver(t), enqueued: make(chan backends.Record, 16)}
	qs := backends.NewStore(q)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := queueElector(t, qs).Campaign(ctx, "turns")
	if err != nil {
		t.Fatal(err)
	}
	var line []chan *Leadership
	join := func() {
		w := make(chan *Leadership, 1)
		go func(e *LeaseElector) {
			l, err := e.Campaign(ctx, "turns")
			if err != nil {
				t.Error(err)
			}
			w <- l
		}(queueElector(t, qs))
		line = append(line, w)
		select {
		case <-q.enqueued:
		case <-ctx.Done():
			t.Fatal("no queue entry made")
		}
	}
	join()
	join()
	for i := range 3 {
		if i == 2 {
			join() // behind the entries of those who led: they must be gone
		}
		if err := l.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		next := <-line[i]
		if next == nil || next.Token <= l.Token {
			t.Fatalf("turn %d: %+v after token %d; want the waiter first in line, with a greater token", i, next, l.Token)
		}
		l = next
	}
}

func queueElector(t *testing.T, store *backends.Store) *LeaseElector {
	e, err := New(store, Options{TTL: 2 * time.Second, Wait: WaitQueue})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}
