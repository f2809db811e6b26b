package zktest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/internal/harness"
	"github.com/leasehold/leasehold/zookeeper"
	"github.com/leasehold/leasehold/zookeeper/internal/names"
)

// AuthHarness is a leasetest.AuthHarness on the ZooKeeper ensemble at
// Servers, with digest ACLs. Setup creates zookeeper.DefaultPrefix with an
// ACL that grants every right to the digest users "holder" and "revokee"
// and read to "reader"; the holder's Stores give the nodes they create the
// same ACL, so that no one else may read, change or delete them (world
// read is off). The refused clients: "reader" (read only), "nobody" (no
// rights), "holder" with a wrong password, credentials of a scheme the
// server has no provider for (AUTH_FAILED), and none at all. It is a
// leasetest.RosterRefuser too: the prefix and the queues' node also grant
// every right to "blind", whose nodes get that ACL, but the rosters' node
// and the holders' nodes do not (see NoRoster).
//
// Setup needs a prefix no one made before: use servers of the test's own.
type AuthHarness struct {
	Servers  []string
	TickTime time.Duration
}

// Password returns the digest password of user.
func Password(user string) string { return user + "-secret" }

// acl is the ACL of the prefix and of every node the holders create.
func acl() []zk.ACL {
	return []zk.ACL{
		zk.DigestACL(zk.PermAll, "holder", Password("holder"))[0],
		zk.DigestACL(zk.PermAll, "revokee", Password("revokee"))[0],
		zk.DigestACL(zk.PermRead, "reader", Password("reader"))[0],
	}
}

// digest returns digest credentials of user with password.
func digest(user, password string) []zookeeper.Auth {
	return []zookeeper.Auth{{Scheme: "digest", Credentials: []byte(user + ":" + password)}}
}

// prefixACL is the ACL of the prefix: acl() and every right for the
// digest user "blind", who may thus create its own nodes in the prefix
// but not read or create those of the holders (see NoRoster).
func prefixACL() []zk.ACL {
	return append(acl(), zk.DigestACL(zk.PermAll, "blind", Password("blind"))[0])
}

// Setup creates the prefix and the node of the queues
// (backends.QueueSegment) with prefixACL, and the node of the rosters
// (backends.RosterSegment) with acl().
func (h *AuthHarness) Setup(t testing.TB) {
	t.Helper()
	c := h.dial(t, digest("holder", Password("holder")))
	if _, err := c.Create(zookeeper.DefaultPrefix, nil, 0, prefixACL()); err != nil {
		t.Fatalf("zktest: create %s: %v", zookeeper.DefaultPrefix, err)
	}
	for _, n := range []struct {
		segment string
		acl     []zk.ACL
	}{{backends.RosterSegment, acl()}, {backends.QueueSegment, prefixACL()}} {
		if _, err := c.Create(zookeeper.DefaultPrefix+"/"+n.segment, nil, 0, n.acl); err != nil {
			t.Fatalf("zktest: create %s: %v", n.segment, err)
		}
	}
}

// NoRoster returns a Store with the credentials of "blind", whose nodes
// get prefixACL: it may create its leader nodes in the prefix, but the
// rosters are the holders' (Setup), so the server refuses its Joins, and
// its Lists of any roster a holder has joined.
// It opens the layout marker (which the holder's first session writes)
// to blind too.
func (h *AuthHarness) NoRoster(t testing.TB) *backends.Store {
	t.Helper()
	marker := zookeeper.DefaultPrefix + "/" + backends.LayoutSegment
	c := h.dial(t, digest("holder", Password("holder")))
	if _, _, err := c.Get(marker); errors.Is(err, zk.ErrNoNode) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ss, err := driver.Of(h.Holder(t)).NewSession(ctx, 2*h.tickTime())
		if err != nil {
			t.Fatalf("zktest: a holder's session to write the layout marker: %v", err)
		}
		_ = ss.Close(ctx)
	}
	if _, err := c.SetACL(marker, prefixACL(), -1); err != nil {
		t.Fatalf("zktest: open %s to blind: %v", marker, err)
	}
	s, _ := h.store(t, digest("blind", Password("blind")), prefixACL())
	return s
}

// dial returns a raw go-zookeeper connection with auth added, closed when
// t ends; adding refused credentials is no error here.
func (h *AuthHarness) dial(t testing.TB, auth []zookeeper.Auth) *zk.Conn {
	t.Helper()
	c, _, err := zk.Connect(h.Servers, 4*time.Second, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatalf("zktest: connect to %v: %v", h.Servers, err)
	}
	t.Cleanup(c.Close)
	for _, a := range auth {
		if err := c.AddAuth(a.Scheme, a.Credentials); err != nil && !errors.Is(err, zk.ErrAuthFailed) {
			t.Fatalf("zktest: add %s credentials: %v", a.Scheme, err)
		}
	}
	return c
}

// store returns a Store with auth (and acl, if not nil) and the auth
// suite's overwrite: a setData of the leader node through a raw
// connection with the same credentials.
func (h *AuthHarness) store(t testing.TB, auth []zookeeper.Auth, acl []zk.ACL) (*backends.Store, func(context.Context, string, []byte) error) {
	t.Helper()
	s, err := zookeeper.New(h.Servers, zookeeper.Options{TickTime: h.tickTime(), Auth: auth, ACL: acl})
	if err != nil {
		t.Fatalf("zktest: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c := h.dial(t, auth)
	overwrite := func(ctx context.Context, election string, value []byte) error {
		path := zookeeper.DefaultPrefix + "/" + names.Node(election) // the leader node (see package zookeeper)
		_, err := c.Set(path, value, -1)
		if errors.Is(err, zk.ErrNoAuth) || errors.Is(err, zk.ErrAuthFailed) {
			return fmt.Errorf("zookeeper setData of %s: %w: %w", path, backends.ErrPermission, err)
		}
		return err
	}
	return s, overwrite
}

// Holder returns a Store with the credentials of "holder".
func (h *AuthHarness) Holder(t testing.TB) *backends.Store {
	s, _ := h.store(t, digest("holder", Password("holder")), acl())
	return s
}

// Refused returns "reader", "nobody", a wrong password, a refused scheme
// and no credentials.
func (h *AuthHarness) Refused() []harness.AuthCase {
	as := func(auth []zookeeper.Auth) func(testing.TB) (*backends.Store, func(context.Context, string, []byte) error) {
		return func(t testing.TB) (*backends.Store, func(context.Context, string, []byte) error) {
			return h.store(t, auth, nil)
		}
	}
	return []harness.AuthCase{
		{Name: "read-only", Store: as(digest("reader", Password("reader"))), KeyRead: true},
		{Name: "no-rights", Store: as(digest("nobody", Password("nobody")))},
		{Name: "wrong-password", Store: as(digest("holder", "wrong"))},
		{Name: "auth-failed", Store: as([]zookeeper.Auth{{Scheme: "nosuchscheme", Credentials: []byte("x")}})},
		{Name: "no-credentials", Store: as(nil)},
	}
}

// Revocable returns a Store with the credentials of "revokee" and a
// function that takes revokee out of the prefix's ACL.
func (h *AuthHarness) Revocable(t testing.TB) (*backends.Store, func(context.Context) error) {
	s, _ := h.store(t, digest("revokee", Password("revokee")), acl())
	c := h.dial(t, digest("holder", Password("holder")))
	return s, func(context.Context) error {
		kept := slices.DeleteFunc(prefixACL(), func(a zk.ACL) bool { return a == acl()[1] })
		_, err := c.SetACL(zookeeper.DefaultPrefix, kept, -1)
		return err
	}
}

// RevokeEndsTerm is false: a ZooKeeper session carries no rights and
// renews without any (KeepAlive is a sync), and an ACL change does not
// touch a session or its ephemeral nodes, so rights taken away while a
// holder leads take effect at its next campaign, not during its term.
func (h *AuthHarness) RevokeEndsTerm() bool { return false }

func (h *AuthHarness) tickTime() time.Duration {
	if h.TickTime == 0 {
		return zookeeper.DefaultTickTime
	}
	return h.TickTime
}
