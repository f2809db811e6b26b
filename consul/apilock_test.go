package consul_test

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/lease"
)

// quiet is how long a blocked contender is watched to make sure it does
// not take a key that is held: long enough for its first acquire and the
// blocking query after it.
const quiet = time.Second

// elector returns an elector with identity id on a store of its own, and
// that store, both closed when t ends.
func elector(t *testing.T, h *consultest.Harness, id string) (*lease.LeaseElector, consul.Driver) {
	t.Helper()
	s, _ := h.NewStore(t)
	e, err := lease.New(s, lease.Options{TTL: 10 * time.Second, Identity: id})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return e, consul.DriverOf(s)
}

// apiLock returns an api.Lock on key as an application using Consul's own
// client would make it.
func apiLock(t *testing.T, c *api.Client, key string) *api.Lock {
	t.Helper()
	lk, err := c.LockOpts(&api.LockOptions{Key: key, Value: []byte("api-lock"), SessionTTL: "10s",
		LockWaitTime: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return lk
}

type campaignResult struct {
	l   *lease.Leadership
	err error
	at  time.Time
}

func campaignAsync(t *testing.T, e *lease.LeaseElector, el string) <-chan campaignResult {
	ch := make(chan campaignResult, 1)
	ctx := backendtest.Context(t, 60*time.Second)
	go func() {
		l, err := e.Campaign(ctx, el)
		ch <- campaignResult{l, err, time.Now()}
	}()
	return ch
}

// TestAPILockHoldsOffElector: while an api.Lock holds the key the elector
// waits, sees the api.Lock's holder as leader, and takes the key after the
// api.Lock's Unlock.
func testAPILockHoldsOffElector(t *testing.T, h *consultest.Harness) {
	e, s := elector(t, h, "ours")
	el := backendtest.Election(t)
	c := h.Client(t)
	lk := apiLock(t, c, consul.KeyOf(s, el))
	if _, err := lk.Lock(nil); err != nil {
		t.Fatalf("api.Lock: %v", err)
	}
	t.Cleanup(func() { _ = lk.Unlock() }) // ErrLockNotHeld once unlocked
	held, _, err := c.KV().Get(consul.KeyOf(s, el), nil)
	if err != nil || held == nil {
		t.Fatalf("key after api.Lock: %+v, %v", held, err)
	}
	ctx := backendtest.Context(t, 10*time.Second)
	info, err := e.Leader(ctx, el)
	if err != nil || info.Identity != "api-lock" || info.Session != held.Session || uint64(info.Token) != held.ModifyIndex {
		t.Fatalf("Leader = %+v, %v; want the api.Lock's session %s", info, err, held.Session)
	}
	if _, err := e.AwaitSession(ctx); err != nil {
		t.Fatal(err)
	}
	ch := campaignAsync(t, e, el)
	select {
	case r := <-ch:
		t.Fatalf("the elector's campaign ended (%v, %v) while api.Lock held the key", r.l, r.err)
	case <-time.After(quiet):
	}
	start := time.Now()
	if err := lk.Unlock(); err != nil {
		t.Fatal(err)
	}
	r := awaitCampaign(t, ch, 5*time.Second)
	if uint64(r.l.Token) <= held.ModifyIndex {
		t.Fatalf("elector's token %d, want above the api.Lock's %d", r.l.Token, held.ModifyIndex)
	}
	t.Logf("elector led %v after api.Lock's Unlock (token %d after %d)", r.at.Sub(start), r.l.Token, held.ModifyIndex)
}

func awaitCampaign(t *testing.T, ch <-chan campaignResult, within time.Duration) campaignResult {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("Campaign: %v", r.err)
		}
		return r
	case <-time.After(within):
		t.Fatalf("the elector did not lead within %v", within)
	}
	return campaignResult{}
}

type lockResult struct {
	lost <-chan struct{}
	err  error
	at   time.Time
}

// TestElectorHoldsOffAPILock: while the elector leads, an api.Lock on the
// same key waits (and finds no flag conflict); after the elector resigns,
// the api.Lock takes the key at once, not after the 5 s api.Lock sleeps
// when its acquire meets a lock-delay.
func testElectorHoldsOffAPILock(t *testing.T, h *consultest.Harness) {
	e, s := elector(t, h, "ours")
	el := backendtest.Election(t)
	l, err := e.Campaign(backendtest.Context(t, 10*time.Second), el)
	if err != nil {
		t.Fatal(err)
	}
	lk := apiLock(t, h.Client(t), consul.KeyOf(s, el))
	got := lockAsync(t, lk)
	select {
	case r := <-got:
		t.Fatalf("api.Lock returned (%v, %v) while the elector held the key", r.lost != nil, r.err)
	case <-time.After(quiet):
	}
	start := time.Now()
	if err := l.Resign(backendtest.Context(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	var r lockResult
	select {
	case r = <-got:
	case <-time.After(api.DefaultLockRetryTime - time.Second):
		t.Fatalf("api.Lock did not acquire within %v of the resign", api.DefaultLockRetryTime-time.Second)
	}
	if r.err != nil || r.lost == nil {
		t.Fatalf("api.Lock after the resign: %v (acquired %v)", r.err, r.lost != nil)
	}
	defer lk.Unlock()
	info, err := e.Leader(backendtest.Context(t, 10*time.Second), el)
	if err != nil || info.Identity != "api-lock" || info.Token <= l.Token {
		t.Fatalf("Leader = %+v, %v; want the api.Lock above token %d", info, err, l.Token)
	}
	t.Logf("api.Lock acquired %v after the elector's resign", r.at.Sub(start))
}

// lockAsync runs lk.Lock in a goroutine that ends with t.
func lockAsync(t *testing.T, lk *api.Lock) <-chan lockResult {
	stop := make(chan struct{})
	got := make(chan lockResult, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		lost, err := lk.Lock(stop)
		got <- lockResult{lost, err, time.Now()}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return got
}
