package consul_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
)

// Tests of Consul-specific behaviour against a real agent.

func newStore(t *testing.T, c *api.Client, opts consul.Options) consul.Driver {
	t.Helper()
	s, err := consul.New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return consul.DriverOf(s)
}

func newSession(t *testing.T, s backends.Driver) backends.Session {
	t.Helper()
	ss, err := s.NewSession(backendtest.Context(t, 10*time.Second), consul.MinTTL)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close(context.Background()) })
	return ss
}

func create(t *testing.T, ss backends.Session, el string) backends.Record {
	t.Helper()
	rec, err := ss.Create(backendtest.Context(t, 10*time.Second), el, []byte(ss.ID()))
	if err != nil {
		t.Fatalf("Create(%q): %v", el, err)
	}
	return rec
}

// TestSessionEntry: sessions have the TTL asked, the delete behavior, no
// health checks and the configured lock-delay (1 ms by default).
func testSessionEntry(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	for _, delay := range []time.Duration{0, 250 * time.Millisecond} {
		ss := newSession(t, newStore(t, c, consul.Options{LockDelay: delay}))
		got, _, err := c.Session().Info(ss.ID(), nil)
		if err != nil || got == nil {
			t.Fatalf("session info: %+v, %v", got, err)
		}
		want := max(delay, consul.DefaultLockDelay)
		if got.TTL != "10s" || got.Behavior != api.SessionBehaviorDelete || got.LockDelay != want ||
			len(got.NodeChecks) != 0 || len(got.Checks) != 0 || len(got.ServiceChecks) != 0 || got.Name != consul.SessionName {
			t.Fatalf("session %+v, want TTL 10s, behavior delete, lock-delay %v, no checks", got, want)
		}
	}
}

// TestInvalidationDeletesKey: when Consul invalidates a session, its keys
// are deleted, not left unlocked.
func testInvalidationDeletesKey(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	s := newStore(t, c, consul.Options{})
	el := backendtest.Election(t)
	create(t, newSession(t, s), el)
	rec := create(t, newSession(t, s), el+"-2")
	if err := h.ExpireSession(backendtest.Context(t, 10*time.Second), rec.Owner); err != nil {
		t.Fatal(err)
	}
	if p, _, err := c.KV().Get(consul.KeyOf(s, el+"-2"), nil); err != nil || p != nil {
		t.Fatalf("key of an invalidated session: %+v, %v; want it deleted", p, err)
	}
	if p, _, err := c.KV().Get(consul.KeyOf(s, el), nil); err != nil || p == nil {
		t.Fatalf("another session's key: %+v, %v; want it kept", p, err)
	}
}

// TestLockDelayIsNotKeyExists: a Create refused by the lock-delay of an
// invalidated holder is a plain error, not ErrKeyExists (a waiter would
// wait for a change that never comes) nor ErrSessionExpired.
func testLockDelayIsNotKeyExists(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	slow := newStore(t, c, consul.Options{LockDelay: 30 * time.Second})
	el := backendtest.Election(t)
	rec := create(t, newSession(t, slow), el)
	ctx := backendtest.Context(t, 10*time.Second)
	if err := h.ExpireSession(ctx, rec.Owner); err != nil {
		t.Fatal(err)
	}
	s := newStore(t, c, consul.Options{})
	got, err := newSession(t, s).Create(ctx, el, []byte("bob"))
	if err == nil || errors.Is(err, backends.ErrKeyExists) || errors.Is(err, backends.ErrSessionExpired) || got.Exists() {
		t.Fatalf("Create inside the lock-delay = %+v, %v; want a plain error", got, err)
	}
	if g, err := s.Get(ctx, el); err != nil || g.Exists() {
		t.Fatalf("Get inside the lock-delay = %+v, %v; want absent", g, err)
	}
	t.Logf("Create inside the lock-delay: %v", err)
}

// TestCloseDeletesBeforeDestroy: Close deletes the session's keys before it
// destroys the session, so no lock-delay is armed: another session takes
// the key at once although the closed session's lock-delay is 30 s.
func testCloseDeletesBeforeDestroy(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	slow := newStore(t, c, consul.Options{LockDelay: 30 * time.Second})
	a := newSession(t, slow)
	el := backendtest.Election(t)
	create(t, a, el)
	ctx := backendtest.Context(t, 10*time.Second)
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	create(t, newSession(t, newStore(t, c, consul.Options{})), el)
}

// TestForeignFlags: a key that is not an api.Lock key is refused with
// api.ErrLockConflict and left as it was.
func testForeignFlags(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	s := newStore(t, c, consul.Options{})
	el := backendtest.Election(t)
	if _, err := c.KV().Put(&api.KVPair{Key: consul.KeyOf(s, el), Value: []byte("data"), Flags: 7}, nil); err != nil {
		t.Fatal(err)
	}
	_, cerr := newSession(t, s).Create(backendtest.Context(t, 10*time.Second), el, []byte("x"))
	if !errors.Is(cerr, api.ErrLockConflict) || errors.Is(cerr, backends.ErrKeyExists) {
		t.Fatalf("Create on a foreign key: %v, want api.ErrLockConflict", cerr)
	}
	p, _, err := c.KV().Get(consul.KeyOf(s, el), nil)
	if err != nil || p == nil || string(p.Value) != "data" || p.Flags != 7 || p.Session != "" {
		t.Fatalf("foreign key after Create: %+v, %v; want it untouched", p, err)
	}
	t.Logf("Create on a foreign key: %v", cerr)
}

// TestTakesUnlockedKey: a lock key no session holds (as api.Lock's Unlock
// leaves it) is absent to Get and taken by Create with a higher token.
func testTakesUnlockedKey(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	s := newStore(t, c, consul.Options{})
	el := backendtest.Election(t)
	if _, err := c.KV().Put(&api.KVPair{Key: consul.KeyOf(s, el), Value: []byte("old"), Flags: api.LockFlagValue}, nil); err != nil {
		t.Fatal(err)
	}
	p, _, err := c.KV().Get(consul.KeyOf(s, el), nil)
	if err != nil || p == nil {
		t.Fatal(p, err)
	}
	ctx := backendtest.Context(t, 10*time.Second)
	if g, err := s.Get(ctx, el); err != nil || g.Exists() || g.Value != nil {
		t.Fatalf("Get of an unlocked key = %+v, %v; want absent", g, err)
	}
	ss := newSession(t, s)
	rec := create(t, ss, el)
	if rec.Token <= p.ModifyIndex || rec.Owner != ss.ID() || string(rec.Value) != ss.ID() {
		t.Fatalf("Create of an unlocked key = %+v; want it held by %s above index %d", rec, ss.ID(), p.ModifyIndex)
	}
}
