package main

import (
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/consul/consultest"
	"github.com/leasehold/leasehold/etcd/etcdtest"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// refusal is one command a store refuses for want of rights: its name,
// its flags besides --store, --election and --ttl (and the child after
// "--" for run), and the store's words its one error line must carry.
type refusal struct {
	name, cmd string
	flags     []string
	words     string
}

// TestRefusedExitsAtOnce: on etcd with RBAC on the prefix, run, observe and
// status as a user without the rights (or with no credentials) print the
// store's refusal on one leasehold: line, and nothing else, and exit 1 at
// once: the elector does not log at error what it returns.
func TestRefusedExitsAtOnce(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	h := &etcdtest.AuthHarness{Endpoints: []string{srv.Endpoint}}
	h.Setup(t)
	store := "etcd://" + strings.TrimPrefix(srv.Endpoint, "http://") + "/leasehold"
	as := func(user string) []string { return []string{"--user", user + ":" + etcdtest.Password(user)} }
	checkRefusals(t, store, "2s", []refusal{
		{"run as a reader", "run", append(as("reader"), "--", "true"), "etcdserver: permission denied"},
		{"run without credentials", "run", []string{"--", "true"}, "etcdserver: user name is empty"},
		{"observe as nobody", "observe", as("nobody"), "etcdserver: permission denied"},
		{"status as nobody", "status", as("nobody"), "etcdserver: permission denied"},
	})
}

// checkRefusals runs each refusal against store with the given TTL and
// checks that it exits 1 within 5 s (a request may take TTL/3) with one
// line on stderr, "leasehold:" and the store's words (docs/security.md).
func checkRefusals(t *testing.T, store, ttl string, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			began := time.Now()
			in := start(t, append([]string{c.cmd, "--store", store, "--election", "jobs/guarded", "--ttl", ttl}, c.flags...)...)
			if code := in.exit(t, 5*time.Second); code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, in.stderr.all.String())
			}
			out := in.stderr.all.String()
			if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "leasehold: ") || !strings.Contains(out, c.words) {
				t.Fatalf("stderr %q, want one leasehold: line with %q", out, c.words)
			}
			t.Logf("exit 1 after %v: %s", time.Since(began).Round(time.Millisecond), out)
		})
	}
}

// TestRefusedExitsAtOnceConsul: on Consul with ACLs (default_policy =
// "deny"), run with a token without session:write or with read-only KV,
// and observe and status with a token without rights, print Consul's
// refusal on one leasehold: line and exit 1 at once.
func TestRefusedExitsAtOnceConsul(t *testing.T) {
	h := &consultest.AuthHarness{Addr: stores.ConsulACL(t), ManagementToken: stores.ConsulManagementToken}
	h.Setup(t)
	store := "consul://" + h.Addr + "/leasehold"
	as := func(name string) []string { return []string{"--token", h.Token(name)} }
	checkRefusals(t, store, "10s", []refusal{
		{"run without session:write", "run", append(as("no-session-write"), "--", "true"), "lacks permission 'session:write'"},
		{"run with read-only KV", "run", append(as("read-only-kv"), "--", "true"), "lacks permission 'key:write'"},
		{"observe without rights", "observe", as("no-rights"), "Permission denied"},
		{"status with an unknown token", "status", as("unknown-token"), "ACL not found"},
	})
}

// TestTokenFlagBeatsTokenFileEnv: a token given to leasehold (--token)
// is the one Consul sees, even with CONSUL_HTTP_TOKEN_FILE naming a file
// of a token with every right (docs/security.md: the environment is
// used only if no flag gives a token).
func TestTokenFlagBeatsTokenFileEnv(t *testing.T) {
	h := &consultest.AuthHarness{Addr: stores.ConsulACL(t), ManagementToken: stores.ConsulManagementToken}
	h.Setup(t)
	t.Setenv("CONSUL_HTTP_TOKEN_FILE", writeFile(t, stores.ConsulManagementToken+"\n"))
	store := "consul://" + h.Addr + "/leasehold"
	checkRefusals(t, store, "10s", []refusal{
		{"status with an unknown token", "status", []string{"--token", h.Token("unknown-token")}, "ACL not found"},
	})
}

// TestRunRevokedExits: a leader whose write rights are revoked loses the
// leadership at its next renewal (the child is stopped), and its new
// campaign is refused: run exits 1 with etcd's words.
func TestRunRevokedExits(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	h := &etcdtest.AuthHarness{Endpoints: []string{srv.Endpoint}}
	h.Setup(t)
	_, revoke := h.Revocable(t)
	store := "etcd://" + strings.TrimPrefix(srv.Endpoint, "http://") + "/leasehold"
	in := start(t, "run", "--store", store, "--election", "jobs/revoked", "--ttl", "2s",
		"--user", "revokee:"+etcdtest.Password("revokee"), "--", "sh", "-c", "sleep 60")
	in.stderr.await(t, "started child", 10*time.Second)
	if err := revoke(t.Context()); err != nil {
		t.Fatal(err)
	}
	in.stderr.await(t, "leadership lost", 5*time.Second)
	if code := in.exit(t, 5*time.Second); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, in.stderr.all.String())
	}
	out := in.stderr.all.String()
	if !strings.Contains(out, "etcdserver: permission denied") {
		t.Fatalf("stderr %q lacks etcd's words", out)
	}
	t.Logf("stderr:\n%s", out)
}
