package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/harness"
	"github.com/leasehold/leasehold/internal/keys"
)

// AuthHarness is a leasetest.AuthHarness on an etcd cluster at Endpoints
// whose RBAC it sets up (Setup): every key the adapter uses lives under
// etcd.DefaultPrefix, and users get rights on that prefix only:
//   - "holder" and "revokee": readwrite (each through a role of its own);
//   - "reader": read;
//   - "nobody": no role;
//   - and a client with no credentials at all.
//
// Setup turns authentication on for the whole cluster: use a cluster of
// the test's own.
type AuthHarness struct {
	Endpoints []string

	root *clientv3.Client
}

// RootPassword is the root user's password Setup sets.
const RootPassword = "root-secret"

// Password returns the password Setup gives user.
func Password(user string) string { return user + "-secret" }

// Setup adds the users and roles and enables authentication. The
// harness's root client is closed when t ends.
func (h *AuthHarness) Setup(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := h.dial(t, "", "")
	steps := []func() error{
		func() error { _, err := c.UserAdd(ctx, "root", RootPassword); return err },
		func() error { _, err := c.UserGrantRole(ctx, "root", "root"); return err },
		func() error { return h.user(ctx, c, "holder", clientv3.PermissionType(clientv3.PermReadWrite)) },
		func() error { return h.user(ctx, c, "revokee", clientv3.PermissionType(clientv3.PermReadWrite)) },
		func() error { return h.user(ctx, c, "reader", clientv3.PermissionType(clientv3.PermRead)) },
		func() error { _, err := c.UserAdd(ctx, "nobody", Password("nobody")); return err },
		func() error { _, err := c.AuthEnable(ctx); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("etcdtest: auth setup step %d: %v", i, err)
		}
	}
	h.root = h.dial(t, "root", RootPassword)
}

// user adds user with a role of the same name holding perm on the prefix.
func (h *AuthHarness) user(ctx context.Context, c *clientv3.Client, user string, perm clientv3.PermissionType) error {
	end := clientv3.GetPrefixRangeEnd(etcd.DefaultPrefix)
	if _, err := c.RoleAdd(ctx, user); err != nil {
		return err
	}
	if _, err := c.RoleGrantPermission(ctx, user, etcd.DefaultPrefix, end, perm); err != nil {
		return err
	}
	if _, err := c.UserAdd(ctx, user, Password(user)); err != nil {
		return err
	}
	_, err := c.UserGrantRole(ctx, user, user)
	return err
}

func (h *AuthHarness) dial(t testing.TB, user, password string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: h.Endpoints, DialTimeout: 5 * time.Second,
		Username: user, Password: password, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("etcdtest: client for %v as %q: %v", h.Endpoints, user, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// store returns a Store on a client logged in as user ("" for none) and
// the overwrite function of the auth suite.
func (h *AuthHarness) store(t testing.TB, user string) (*backends.Store, func(context.Context, string, []byte) error) {
	t.Helper()
	password := ""
	if user != "" {
		password = Password(user)
	}
	c := h.dial(t, user, password)
	s, err := etcd.New(c, etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	overwrite := func(ctx context.Context, election string, value []byte) error {
		_, err := c.Put(ctx, keys.Leader(etcd.DefaultPrefix, election), string(value))
		if errors.Is(rpctypes.Error(err), rpctypes.ErrPermissionDenied) || errors.Is(rpctypes.Error(err), rpctypes.ErrUserEmpty) {
			return fmt.Errorf("etcd put as %q: %w: %w", user, backends.ErrPermission, err)
		}
		return err
	}
	return s, overwrite
}

// Holder returns a Store logged in as "holder".
func (h *AuthHarness) Holder(t testing.TB) *backends.Store {
	s, _ := h.store(t, "holder")
	return s
}

// Refused returns "reader", "nobody" and a client without credentials.
func (h *AuthHarness) Refused() []harness.AuthCase {
	as := func(user string) func(testing.TB) (*backends.Store, func(context.Context, string, []byte) error) {
		return func(t testing.TB) (*backends.Store, func(context.Context, string, []byte) error) {
			return h.store(t, user)
		}
	}
	return []harness.AuthCase{
		{Name: "read-only", Store: as("reader"), KeyRead: true},
		{Name: "no-rights", Store: as("nobody")},
		{Name: "no-credentials", Store: as("")},
	}
}

// Revocable returns a Store logged in as "revokee" and a function that
// takes its role's permission on the prefix away.
func (h *AuthHarness) Revocable(t testing.TB) (*backends.Store, func(context.Context) error) {
	s, _ := h.store(t, "revokee")
	return s, func(ctx context.Context) error {
		_, err := h.root.RoleRevokePermission(ctx, "revokee", etcd.DefaultPrefix, clientv3.GetPrefixRangeEnd(etcd.DefaultPrefix))
		return err
	}
}

// RevokeEndsTerm is true: etcd refuses a keep-alive of a lease whose
// user may no longer write its keys.
func (h *AuthHarness) RevokeEndsTerm() bool { return true }
