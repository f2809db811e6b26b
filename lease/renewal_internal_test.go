package lease

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestRenewalAheadOfBacklog: a renewal answered in time keeps the session
// although the loop has a backlog of reports longer than the holder's
// deadline, as a thousand campaigns on one elector make under load. Each
// report of the backlog takes 1 ms of the loop; 3,000 of them hold it for
// twice the 1.48 s a renewal lets the holder act at a TTL of 2 s.
func TestRenewalAheadOfBacklog(t *testing.T) {
	store := embeddedStore(t)
	e, err := New(store, Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := e.Campaign(ctx, "backlog")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 3000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.post(func(time.Time) { time.Sleep(time.Millisecond) }) // a slow report, not a wait
		}()
	}
	wg.Wait()
	if !e.do(func(time.Time) {}) {
		t.Fatal("elector closed")
	}
	if err, valid := l.Err(), l.Valid(); err != nil || valid != nil {
		t.Fatalf("after the backlog: Err %v, Valid %v; want the leadership kept", err, valid)
	}
}
