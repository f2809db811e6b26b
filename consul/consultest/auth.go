package consultest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/internal/harness"
	"github.com/leasehold/leasehold/internal/keys"
)

// AuthHarness is a leasetest.AuthHarness on a Consul agent at Addr with
// ACLs on and default_policy = "deny", managed with ManagementToken. Setup
// makes one policy and token per case, on consul.DefaultPrefix only:
//   - "holder" and "revokee": key_prefix write and session_prefix "" write,
//     what an elector needs;
//   - "read-only-kv": key_prefix read, session write;
//   - "no-session-write": key_prefix write, session read (it could delete
//     or overwrite a leader key: only key write rights protect those);
//   - "no-rights": a token with no policy;
//   - "unknown-token": a token Consul does not know;
//   - "anonymous": no token at all.
type AuthHarness struct {
	Addr            string
	ManagementToken string

	admin  *api.Client
	tokens map[string]string // case name -> secret
}

// Rules of the harness's policies, by case name.
var authRules = map[string]string{
	"holder":           fullRules,
	"revokee":          fullRules,
	"read-only-kv":     `key_prefix "` + consul.DefaultPrefix + `" { policy = "read" }` + "\n" + `session_prefix "" { policy = "write" }`,
	"no-session-write": `key_prefix "` + consul.DefaultPrefix + `" { policy = "write" }` + "\n" + `session_prefix "" { policy = "read" }`,
}

// fullRules are the rights an elector needs: write on its prefix (leader
// keys, queue entries, guarded data) and on sessions.
const fullRules = `key_prefix "` + consul.DefaultPrefix + `" { policy = "write" }` + "\n" + `session_prefix "" { policy = "write" }`

// readRules are what revoke leaves the "revokee": reads only.
const readRules = `key_prefix "` + consul.DefaultPrefix + `" { policy = "read" }` + "\n" + `session_prefix "" { policy = "read" }`

// Setup creates the policies and tokens.
func (h *AuthHarness) Setup(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h.admin = h.client(t, h.ManagementToken)
	h.tokens = map[string]string{"unknown-token": "6a1f1c0e-0000-4000-8000-000000000000", "anonymous": ""}
	w := (&api.WriteOptions{}).WithContext(ctx)
	for name, rules := range authRules {
		if _, _, err := h.admin.ACL().PolicyCreate(&api.ACLPolicy{Name: name, Rules: rules}, w); err != nil {
			t.Fatalf("consultest: policy %s: %v", name, err)
		}
		tok, _, err := h.admin.ACL().TokenCreate(&api.ACLToken{Description: name,
			Policies: []*api.ACLTokenPolicyLink{{Name: name}}}, w)
		if err != nil {
			t.Fatalf("consultest: token %s: %v", name, err)
		}
		h.tokens[name] = tok.SecretID
	}
	tok, _, err := h.admin.ACL().TokenCreate(&api.ACLToken{Description: "no-rights"}, w)
	if err != nil {
		t.Fatalf("consultest: token no-rights: %v", err)
	}
	h.tokens["no-rights"] = tok.SecretID
}

// Token returns the secret of a case's token ("" for "anonymous").
func (h *AuthHarness) Token(name string) string { return h.tokens[name] }

func (h *AuthHarness) client(t testing.TB, token string) *api.Client {
	t.Helper()
	cfg := api.DefaultConfig()
	cfg.Address, cfg.Scheme, cfg.Token = h.Addr, "http", token
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatalf("consul client for %s: %v", h.Addr, err)
	}
	t.Cleanup(cfg.Transport.CloseIdleConnections)
	return c
}

// store returns a Store with the token of case name and the auth suite's
// overwrite function.
func (h *AuthHarness) store(t testing.TB, name string) (*backends.Store, func(context.Context, string, []byte) error) {
	t.Helper()
	c := h.client(t, h.tokens[name])
	s, err := consul.New(c, consul.Options{})
	if err != nil {
		t.Fatal(err)
	}
	overwrite := func(ctx context.Context, election string, value []byte) error {
		_, err := c.KV().Put(&api.KVPair{Key: keys.Leader(consul.DefaultPrefix, election), Value: value, Flags: api.LockFlagValue},
			(&api.WriteOptions{}).WithContext(ctx))
		var st api.StatusError
		if errors.As(err, &st) && st.Code == http.StatusForbidden {
			return fmt.Errorf("consul put with token %q: %w: %w", name, backends.ErrPermission, err)
		}
		return err
	}
	return s, overwrite
}

// Holder returns a Store with the "holder" token.
func (h *AuthHarness) Holder(t testing.TB) *backends.Store {
	s, _ := h.store(t, "holder")
	return s
}

// Refused returns every case short of the elector's rights.
func (h *AuthHarness) Refused() []harness.AuthCase {
	as := func(name string) func(testing.TB) (*backends.Store, func(context.Context, string, []byte) error) {
		return func(t testing.TB) (*backends.Store, func(context.Context, string, []byte) error) {
			return h.store(t, name)
		}
	}
	return []harness.AuthCase{
		{Name: "read-only-kv", Store: as("read-only-kv"), KeyRead: true},
		{Name: "no-session-write", Store: as("no-session-write"), KeyRead: true, KeyWrite: true},
		{Name: "no-rights", Store: as("no-rights")},
		{Name: "unknown-token", Store: as("unknown-token")},
		{Name: "anonymous", Store: as("anonymous")},
	}
}

// Revocable returns a Store with the "revokee" token and a function that
// cuts its policy down to reads.
func (h *AuthHarness) Revocable(t testing.TB) (*backends.Store, func(context.Context) error) {
	s, _ := h.store(t, "revokee")
	return s, func(ctx context.Context) error {
		q := (&api.QueryOptions{}).WithContext(ctx)
		p, _, err := h.admin.ACL().PolicyReadByName("revokee", q)
		if err != nil {
			return err
		}
		p.Rules = readRules
		_, _, err = h.admin.ACL().PolicyUpdate(p, (&api.WriteOptions{}).WithContext(ctx))
		return err
	}
}

// RevokeEndsTerm is true: Consul refuses the renewal of a session whose
// token lost session:write.
func (h *AuthHarness) RevokeEndsTerm() bool { return true }
