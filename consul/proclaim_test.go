package consul_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
)

// Tests of Proclaim against a real agent.

// proclaim proclaims value at rec's token with ss, failing t on an error.
func proclaim(t *testing.T, s consul.Driver, ss backends.Session, rec backends.Record, value string) backends.Record {
	t.Helper()
	got, err := ss.Proclaim(backendtest.Context(t, 10*time.Second), rec.Election, rec.Token, []byte(value))
	if err != nil {
		t.Fatalf("Proclaim(%q): %v", value, err)
	}
	if got.Token != rec.Token || got.Owner != ss.ID() || string(got.Value) != value {
		t.Fatalf("Proclaim(%q) = %+v; want token %d, owner %s", value, got, rec.Token, ss.ID())
	}
	return got
}

// testProclaimKeepsLock: a proclaimed key keeps its session, CreateIndex,
// LockIndex and api.Lock's flags, and its token through Get, guarded
// writes and Delete, however many times it is proclaimed; a stale token
// stays refused.
func testProclaimKeepsLock(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	s := newStore(t, c, consul.Options{})
	ss := newSession(t, s)
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 20*time.Second)
	rec := create(t, ss, el)
	before, _, err := c.KV().Get(consul.KeyOf(s, el), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"one", "two", "two"} {
		proclaim(t, s, ss, rec, v)
		p, _, err := c.KV().Get(consul.KeyOf(s, el), nil)
		if err != nil || p.Session != ss.ID() || p.CreateIndex != before.CreateIndex || p.LockIndex != before.LockIndex ||
			p.Flags != api.LockFlagValue || p.ModifyIndex <= rec.Token {
			t.Fatalf("key after Proclaim(%q): %+v, %v; want it locked as before (%+v), modified", v, p, err, before)
		}
		if got, err := s.Get(ctx, el); err != nil || got.Token != rec.Token || string(got.Value) != v || got.Owner != ss.ID() {
			t.Fatalf("Get after Proclaim(%q) = %+v, %v; want token %d", v, got, err, rec.Token)
		}
		if err := s.GuardedPut(ctx, backends.Guarded{Election: el, Token: rec.Token, Key: "d", Value: []byte(v)}); err != nil {
			t.Fatalf("GuardedPut at the token after Proclaim(%q): %v", v, err)
		}
		if err := s.GuardedPut(ctx, backends.Guarded{Election: el, Token: rec.Token - 1, Key: "d", Value: nil}); !errors.Is(err, backends.ErrNotLeader) {
			t.Fatalf("GuardedPut at a stale token: %v, want ErrNotLeader", err)
		}
	}
	if err := backendtest.Release(ctx, ss, el, rec.Token-1); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Delete at a stale token: %v, want ErrNotFound", err)
	}
	if err := backendtest.Release(ctx, ss, el, rec.Token); err != nil {
		t.Fatalf("Delete at the token of a proclaimed key: %v", err)
	}
	if got, err := s.Get(ctx, el); err != nil || got.Exists() {
		t.Fatalf("Get after Delete = %+v, %v; want absent", got, err)
	}
}

// testProclaimWakesWaiters: a WatchSet's WatchKey request sees a
// Proclaim as a change of value under the same token.
func testProclaimWakesWaiters(t *testing.T, h *consultest.Harness) {
	s := newStore(t, h.Client(t), consul.Options{})
	ss := newSession(t, s)
	el := backendtest.Election(t)
	rec := create(t, ss, el)
	ws, ch := watch(t, s)
	ws.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: rec})
	proclaim(t, s, ss, rec, "news")
	if c := ch.next(t); c.Err != nil || c.Record.Token != rec.Token || string(c.Record.Value) != "news" {
		t.Fatalf("WatchSet answer %+v; want token %d, value news", c, rec.Token)
	}
}

// testProclaimRefused: Proclaim by another session, at another token, or
// after the session ended is ErrNotFound (and ErrSessionExpired for the
// last), and changes nothing.
func testProclaimRefused(t *testing.T, h *consultest.Harness) {
	s := newStore(t, h.Client(t), consul.Options{})
	alice, bob := newSession(t, s), newSession(t, s)
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 20*time.Second)
	rec := create(t, alice, el)
	if _, err := bob.Proclaim(ctx, el, rec.Token, []byte("x")); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Proclaim by another session: %v, want ErrNotFound", err)
	}
	proclaim(t, s, alice, rec, "one") // bob's slow path too, below
	if _, err := bob.Proclaim(ctx, el, rec.Token, []byte("x")); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Proclaim by another session after a Proclaim: %v, want ErrNotFound", err)
	}
	if _, err := alice.Proclaim(ctx, el, rec.Token+1, []byte("x")); !errors.Is(err, backends.ErrNotFound) {
		t.Fatalf("Proclaim at another token: %v, want ErrNotFound", err)
	}
	if got, err := s.Get(ctx, el); err != nil || string(got.Value) != "one" {
		t.Fatalf("Get = %+v, %v; want the value one", got, err)
	}
	if err := alice.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := alice.Proclaim(ctx, el, rec.Token, []byte("x"))
	if !errors.Is(err, backends.ErrNotFound) || !errors.Is(err, backends.ErrSessionExpired) {
		t.Fatalf("Proclaim after Close: %v, want ErrNotFound and ErrSessionExpired", err)
	}
}

// testProclaimKeepsAPILockWaiting: an api.Lock waiting on a key the
// adapter holds goes on waiting through a Proclaim (the key keeps
// api.Lock's flags), and takes the key after the Delete.
func testProclaimKeepsAPILockWaiting(t *testing.T, h *consultest.Harness) {
	c := h.Client(t)
	s := newStore(t, c, consul.Options{})
	ss := newSession(t, s)
	el := backendtest.Election(t)
	rec := create(t, ss, el)
	lk := apiLock(t, c, consul.KeyOf(s, el))
	got := lockAsync(t, lk)
	proclaim(t, s, ss, rec, "handing over")
	select {
	case r := <-got:
		t.Fatalf("api.Lock returned (%v, %v) after the Proclaim, while the key was held", r.lost != nil, r.err)
	case <-time.After(quiet):
	}
	if err := backendtest.Release(backendtest.Context(t, 10*time.Second), ss, el, rec.Token); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r.err != nil || r.lost == nil {
			t.Fatalf("api.Lock after the Delete: %v (acquired %v)", r.err, r.lost != nil)
		}
		defer lk.Unlock()
	case <-time.After(api.DefaultLockRetryTime - time.Second):
		t.Fatalf("api.Lock did not acquire within %v of the Delete", api.DefaultLockRetryTime-time.Second)
	}
	if p, _, err := c.KV().Get(consul.KeyOf(s, el), nil); err != nil || string(p.Value) != "api-lock" {
		t.Fatalf("key after api.Lock: %+v, %v", p, err)
	}
}
