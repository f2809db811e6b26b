package leasetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/internal/harness"
	"github.com/leasehold/leasehold/lease"
)

// AuthHarness connects the auth suite to one store with access control
// on (etcd RBAC, Consul ACLs with default_policy = "deny", ZooKeeper
// ACLs). Its methods may be called from several tests at once.
type AuthHarness interface {
	// Holder returns a Store with every right the elector needs under
	// the adapter's prefix, on a connection of its own closed when t ends.
	Holder(t testing.TB) *backends.Store
	// Refused returns the clients short of those rights.
	Refused() []AuthCase
	// Revocable returns a Store with every right, like Holder's but for
	// a principal of its own, and a function that takes its write rights
	// away (as an operator would while it leads).
	Revocable(t testing.TB) (store *backends.Store, revoke func(context.Context) error)
	// RevokeEndsTerm reports whether the store ends a running term when
	// its holder's rights are taken away (etcd and Consul refuse the next
	// renewal). If not (ZooKeeper: a session carries no rights), the suite
	// checks instead that the rights apply from the next campaign.
	RevokeEndsTerm() bool
}

// AuthCase is a client short of the rights the elector needs (see
// harness.AuthCase for its fields).
type AuthCase = harness.AuthCase

// RunAuthTests runs the auth suite: a holder with every right leads; each
// refused client's Campaign, its delete of the holder's key at the
// holder's token (the resign of another's term), its overwrite of the key
// and its guarded write each fail at once with an error wrapping
// backends.ErrPermission, with no hang, and the holder keeps its key and
// its term; a holder whose rights are revoked loses its leadership with
// an error wrapping backends.ErrPermission. base holds the options of
// every elector; "at once" is within 2×RequestTimeout, set as a context
// deadline, so a hang shows as context.DeadlineExceeded.
func RunAuthTests(t *testing.T, h AuthHarness, base lease.Options) {
	s := &authSuite{h: h, base: base}
	t.Run("Refused", s.testRefused)
	t.Run("Revoked", s.testRevoked)
	if r, ok := h.(RosterRefuser); ok {
		t.Run("RosterRefused", func(t *testing.T) { s.testRosterRefused(t, r) })
	}
}

type authSuite struct {
	h    AuthHarness
	base lease.Options
}

func (s *authSuite) elector(t *testing.T, store *backends.Store, identity string) *lease.LeaseElector {
	t.Helper()
	opts := s.base
	opts.Identity = identity
	e, err := lease.New(store, opts)
	if err != nil {
		t.Fatalf("lease.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return e
}

// bound is the context every refused call runs under: 2×RequestTimeout.
func (s *authSuite) bound(t *testing.T, e *lease.LeaseElector) context.Context {
	return backendtest.Context(t, 2*e.Options().RequestTimeout)
}

func (s *authSuite) testRefused(t *testing.T) {
	el := backendtest.Election(t)
	holderStore := s.h.Holder(t)
	holder := s.elector(t, holderStore, "holder")
	l := campaign(t, holder, el)
	for _, c := range s.h.Refused() {
		t.Run(c.Name, func(t *testing.T) {
			store, overwrite := c.Store(t)
			e := s.elector(t, store, "mallory")
			_, err := e.Campaign(s.bound(t, e), el)
			wantPermission(t, "Campaign", err)
			if _, err := e.AwaitSession(s.bound(t, e)); err != nil {
				wantPermission(t, "AwaitSession", err) // a session refused, not a hang
			}
			s.checkReads(t, e, driver.Of(store), c, el, l)
			if !c.KeyWrite {
				s.attack(t, e, driver.Of(store), overwrite, el, l)
			}
			holderKeeps(t, driver.Of(holderStore), l)
		})
	}
}

// checkReads: Leader and Observe show the holder to a client that may
// read; Leader, a WatchKey request in the adapter's WatchSet and Observe fail with ErrPermission,
// the stream closing, for one that may not.
func (s *authSuite) checkReads(t *testing.T, e *lease.LeaseElector, store backends.Driver, c AuthCase, el string, l *lease.Leadership) {
	t.Helper()
	info, err := e.Leader(s.bound(t, e), el)
	if c.KeyRead {
		if err != nil || info.Token != l.Token {
			t.Fatalf("Leader: %+v, %v; want the holder's token %d", info, err, l.Token)
		}
		return
	}
	wantPermission(t, "Leader", err)
	wantPermission(t, "WatchKey answer", watchKeyErr(t, e, store, el))
	ctx := s.bound(t, e)
	ch, err := e.Observe(ctx, el)
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	select {
	case last := <-ch:
		wantPermission(t, "Observe's last value", last.Err)
	case <-ctx.Done():
		t.Fatalf("Observe sent nothing within %v", e.Options().RequestTimeout*2)
	}
	if _, open := <-ch; open {
		t.Fatal("Observe's channel stayed open after the refusal")
	}
}

// attack tries to resign the holder's term (a delete at its token), to
// overwrite its key and to make a guarded write at its token.
func (s *authSuite) attack(t *testing.T, e *lease.LeaseElector, store backends.Driver,
	overwrite func(context.Context, string, []byte) error, el string, l *lease.Leadership) {
	t.Helper()
	wantPermission(t, "overwrite", overwrite(s.bound(t, e), el, []byte("mallory")))
	wantPermission(t, "GuardedPut", store.GuardedPut(s.bound(t, e), backends.Guarded{Election: el, Token: uint64(l.Token), Key: "d", Value: []byte("x")}))
	sess, err := store.NewSession(s.bound(t, e), e.Options().TTL)
	if err != nil { // a store that refuses the session refuses the rest with it
		wantPermission(t, "NewSession", err)
		return
	}
	t.Cleanup(func() { _ = sess.Close(context.Background()) })
	wantPermission(t, "Delete at the holder's token", backendtest.Release(s.bound(t, e), sess, el, uint64(l.Token)))
}

// holderKeeps checks that the holder still leads with the same term and
// that its key is still the one it took.
func holderKeeps(t *testing.T, holder backends.Driver, l *lease.Leadership) {
	t.Helper()
	if err := l.Err(); err != nil {
		t.Fatalf("the holder's leadership ended: %v", err)
	}
	rec, err := holder.Get(backendtest.Context(t, 10*time.Second), l.Election)
	if err != nil || rec.Token != uint64(l.Token) || rec.Owner != l.Session {
		t.Fatalf("holder's key: %+v, %v; want token %d of session %s", rec, err, l.Token, l.Session)
	}
}

// testRevoked: a holder whose write rights are taken away while it leads
// loses the leadership, with the store's refusal as the cause, and does
// not wait for its deadline to say so. On a store whose terms outlive a
// revocation, the same principal's next campaign is refused at once.
func (s *authSuite) testRevoked(t *testing.T) {
	store, revoke := s.h.Revocable(t)
	e := s.elector(t, store, "revokee")
	l := campaign(t, e, backendtest.Election(t))
	if err := revoke(backendtest.Context(t, 10*time.Second)); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	if !s.h.RevokeEndsTerm() {
		next := s.elector(t, store, "revokee-next")
		_, err := next.Campaign(s.bound(t, next), backendtest.Election(t))
		wantPermission(t, "Campaign after the revocation", err)
		return
	}
	opts := e.Options()
	select {
	case <-l.Context().Done():
	case <-time.After(opts.TTL + 2*opts.RequestTimeout):
		t.Fatalf("the leadership outlived its rights by %v", opts.TTL+2*opts.RequestTimeout)
	}
	wantPermission(t, "the leadership's cause", l.Err())
	if got := lease.Reason(l.Err()); got != lease.ReasonPermission {
		t.Fatalf("Reason = %q, want %q", got, lease.ReasonPermission)
	}
}

// wantPermission fails unless err wraps backends.ErrPermission and the
// call did not merely run out of time.
func wantPermission(t *testing.T, what string, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Fatalf("%s: no error, want one wrapping backends.ErrPermission", what)
	case errors.Is(err, context.DeadlineExceeded):
		t.Fatalf("%s: hung until the deadline: %v", what, err)
	case !errors.Is(err, backends.ErrPermission):
		t.Fatalf("%s: %v, want an error wrapping backends.ErrPermission", what, err)
	}
	t.Logf("%s: %v", what, err)
}

// watchKeyErr makes a WatchKey request on el in a WatchSet of store and
// returns its answer's error, failing t if none comes within twice e's
// RequestTimeout.
func watchKeyErr(t *testing.T, e *lease.LeaseElector, store backends.Driver, el string) error {
	t.Helper()
	ch := make(chan error, 1)
	set := store.Watch(func(c backends.Change) { ch <- c.Err })
	defer set.Close()
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 1, Known: backends.Record{Election: el, Revision: 1}})
	select {
	case err := <-ch:
		return err
	case <-time.After(2 * e.Options().RequestTimeout):
		t.Fatalf("WatchKey request not answered within %v", 2*e.Options().RequestTimeout)
	}
	return nil
}
