package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// secret is etcd's root password in the credentials tests: no other part
// of any output contains it.
const secret = "S3cret-b71e40"

// authEtcd starts an etcd with auth on, whose root password is secret, and
// returns its host:port.
func authEtcd(t *testing.T) string {
	t.Helper()
	return authEtcdWith(t, secret)
}

// authEtcdWith is authEtcd with root's password.
func authEtcdWith(t *testing.T, password string) string {
	t.Helper()
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	admin, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := admin.UserAdd(ctx, "root", password); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.UserGrantRole(ctx, "root", "root"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.AuthEnable(ctx); err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(srv.Endpoint, "http://")
}

// writeFile writes content to a new file in a test directory.
func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// output is all an instance wrote, once it has exited.
func (in *instance) output() string {
	in.stdout.mu.Lock()
	defer in.stdout.mu.Unlock()
	in.stderr.mu.Lock()
	defer in.stderr.mu.Unlock()
	return in.stdout.all.String() + in.stderr.all.String()
}

// TestSecretNeverPrinted: with the password in the URL or in a file,
// status (text and JSON), observe and run at --log-level debug, and every
// error about a bad URL or bad credentials, print nothing that contains
// the password.
func TestSecretNeverPrinted(t *testing.T) {
	host := authEtcd(t)
	good := "etcd://root:" + secret + "@" + host + "/t"
	file := writeFile(t, secret+"\n")
	debug := []string{"--election", "jobs/s", "--log-level", "debug", "--dial-timeout", "20s"}
	var all []*instance
	started := func(args ...string) *instance {
		in := start(t, append(append([]string{args[0]}, debug...), args[1:]...)...)
		all = append(all, in)
		return in
	}
	exits := func(in *instance, want int) {
		t.Helper()
		if code := in.exit(t, 20*time.Second); code != want {
			t.Errorf("exit %d, want %d; output:\n%s", code, want, in.output())
		}
	}
	obs := started("observe", "--store", good)
	obsJSON := started("observe", "--store", "etcd://root@"+host+"/t", "--password-file", file, "--json")
	obs.stdout.await(t, "no leader", 20*time.Second)
	exits(started("status", "--store", good), exitNoLeader)
	r := started("run", "--store", "etcd://"+host+"/t", "--user", "root", "--password-file", file,
		"--ttl", "2s", "--identity", "worker-1", "--", "sleep", "60")
	obs.stdout.await(t, "leader worker-1", 20*time.Second)
	obsJSON.stdout.await(t, `"identity":"worker-1"`, 20*time.Second)
	exits(started("status", "--store", good, "--json"), 0)
	r.cancel()
	obs.stdout.await(t, "no leader", 20*time.Second)
	r.exit(t, 20*time.Second) // its code on a signal is run's business

	// Errors: a bad URL, a credential given twice or to the wrong store,
	// a wrong password.
	for _, args := range [][]string{
		{"status", "--store", "etcd://root:" + secret + "@" + host + ":x/t"},
		{"status", "--store", good + "?tock=2s"},
		{"status", "--store", "etcd://root:" + secret + "%zz@" + host + "/t"},
		{"status", "--store", "etcd://root:" + secret + "/x@" + host + "/t#f"},
		{"observe", "--store", "redis://root:" + secret + "@" + host + "/t"},
		{"observe", "--store", "consul://root:" + secret + "@" + host + "/t"},
		{"run", "--store", good, "--password-file", file, "--", "true"},
		{"run", "--store", good, "--user", "root", "--", "true"},
		{"status", "--store", "zk://root:" + secret + "@" + host + "/t?tick=2s&tick=1s"},
		{"status", "--store", "etcd:root:" + secret + "@" + host},
	} {
		exits(started(args...), 2)
	}
	wrong := "etcd://root:" + secret + "x@" + host + "/t"
	exits(started("status", "--store", wrong), 1)
	exits(started("run", "--store", wrong, "--", "true"), 1)
	obs.cancel()
	obsJSON.cancel()
	for _, in := range all {
		in.exit(t, 10*time.Second)
		if out := in.output(); strings.Contains(out, secret) {
			t.Errorf("the password is printed:\n%s", out)
		} else if strings.Contains(out, "leasehold:") {
			t.Logf("%s", strings.TrimSpace(out))
		}
	}
}

// TestCredentialFlags: --password-file and --token-file are read once,
// less a trailing newline; an empty or unreadable file, or a secret given
// twice, is a usage error naming the flag.
func TestCredentialFlags(t *testing.T) {
	host := authEtcd(t)
	crlf := writeFile(t, secret+"\r\n")
	st := start(t, "status", "--store", "etcd://root@"+host+"/t", "--election", "a", "--password-file", crlf)
	if code := st.exit(t, 20*time.Second); code != exitNoLeader {
		t.Fatalf("status with --password-file: exit %d, want %d\n%s", code, exitNoLeader, st.output())
	}
	empty, twoLines := writeFile(t, "\n"), writeFile(t, "a\nb\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--store", "etcd://root@" + host + "/t", "--password-file", empty}, "--password-file " + empty + ": the file is empty"},
		{[]string{"--store", "etcd://root@" + host + "/t", "--password-file", twoLines}, "more than one line"},
		{[]string{"--store", "etcd://root@" + host + "/t", "--password-file", "/nonexistent/pw"}, "--password-file: open /nonexistent/pw"},
		{[]string{"--store", "etcd://" + host + "/t", "--user", "root:x", "--password-file", crlf}, "give it once"},
		{[]string{"--store", "consul://127.0.0.1:1/t", "--token", "x", "--token-file", crlf}, "--token and --token-file"},
		{[]string{"--store", "consul://127.0.0.1:1/t", "--token-file", empty}, "--token-file " + empty},
		{[]string{"--store", "etcd://" + host + "/t", "--token-file", crlf}, "is for consul URLs"},
		{[]string{"--store", "etcd://" + host + "/t", "--password-file", crlf}, "a password without a user"},
	} {
		in := start(t, append([]string{"status", "--election", "a"}, c.args...)...)
		if code := in.exit(t, 20*time.Second); code != 2 || !strings.Contains(in.output(), c.want) {
			t.Errorf("status %v: exit %d, output %q; want 2 and %q", c.args, code, in.output(), c.want)
		}
	}
}

// TestTokenFromFile: the token file's content, less its newline, is the
// Consul token; CONSUL_HTTP_TOKEN is used only without --token and
// --token-file.
func TestTokenFromFile(t *testing.T) {
	t.Setenv("CONSUL_HTTP_TOKEN", "from-env")
	c := common{store: "consul://127.0.0.1:8500/t", tokenFile: writeFile(t, "from-file\n")}
	opts, err := c.storeOptions()
	if err != nil || opts.Token != "from-file" {
		t.Fatalf("token %q, %v; want from-file", opts.Token, err)
	}
	c.tokenFile = ""
	if opts, err = c.storeOptions(); err != nil || opts.Token != "from-env" {
		t.Fatalf("token %q, %v; want from-env", opts.Token, err)
	}
	c.store = "etcd://127.0.0.1:2379/t"
	if opts, err = c.storeOptions(); err != nil || opts.Token != "" {
		t.Fatalf("token for etcd %q, %v; want none", opts.Token, err)
	}
}

// TestEnvCredentialsEveryScheme: the environment's credentials reach the
// store the URL names, with TLS (etcds, zks, consuls) as without: a
// ZooKeeper digest for zk, zookeeper and zks, a Consul token for consul
// and consuls, and a user's password for etcd and ZooKeeper; none goes to
// another store.
func TestEnvCredentialsEveryScheme(t *testing.T) {
	t.Setenv("LEASEHOLD_ZK_DIGEST", "alice:digest")
	t.Setenv("CONSUL_HTTP_TOKEN", "token")
	t.Setenv("LEASEHOLD_PASSWORD", "password")
	for _, c := range []struct {
		scheme, digest, token string
		users                 bool // the store takes a user and password
	}{
		{"etcd", "", "", true}, {"etcds", "", "", true},
		{"zk", "alice:digest", "", true}, {"zookeeper", "alice:digest", "", true}, {"zks", "alice:digest", "", true},
		{"consul", "", "token", false}, {"consuls", "", "token", false},
	} {
		cm := common{store: c.scheme + "://127.0.0.1:1/t"}
		opts, err := cm.storeOptions()
		if err != nil || opts.ZKDigest != c.digest || opts.Token != c.token || opts.Password != "" {
			t.Errorf("%s: digest %q, token %q, password %q, %v; want %q, %q, none",
				c.scheme, opts.ZKDigest, opts.Token, opts.Password, err, c.digest, c.token)
		}
		if !c.users {
			continue
		}
		cm.user = "bob"
		if opts, err = cm.storeOptions(); err != nil || opts.Password != "password" || opts.ZKDigest != "" {
			t.Errorf("%s with --user bob: password %q, digest %q, %v; want LEASEHOLD_PASSWORD's and no digest",
				c.scheme, opts.Password, opts.ZKDigest, err)
		}
	}
}

// TestBadOptionsExit2: a bad --log-level, --ttl, --margin, --identity or
// --wait is a usage error (exit 2) naming what is allowed.
func TestBadOptionsExit2(t *testing.T) {
	store := "etcd://" + etcdServer(t) + "/t"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "--log-level", "bogus"}, "want one of debug, info, warn, error"},
		{[]string{"run", "--ttl", "2500ms", "--", "true"}, "TTL 2.5s is not a multiple of 1s"},
		{[]string{"run", "--ttl", "1s", "--", "true"}, "TTL 1s is out of the store's range"},
		{[]string{"run", "--ttl", "2s", "--margin", "3s", "--", "true"}, "SafetyMargin 3s"},
		{[]string{"run", "--identity", "a\nb", "--", "true"}, "Identity"},
		{[]string{"run", "--wait", "herd", "--", "true"}, `--wait "herd": want queue or key`},
		{[]string{"status", "--election", "a//b"}, "--election"},
		{[]string{"status", "--store", "zk://127.0.0.1:1/t?tick=soon"}, `tick="soon"`},
	} {
		args := append([]string{c.args[0], "--store", store, "--election", "a"}, c.args[1:]...)
		in := start(t, args...)
		if code := in.exit(t, 20*time.Second); code != 2 || !strings.Contains(in.output(), c.want) {
			t.Errorf("%q: exit %d, output %q; want 2 and %q", c.args, code, in.output(), c.want)
		}
	}
}

// TestQueryTTL: status and observe take a TTL in the store's range and
// unit, whatever the default TTL is.
func TestQueryTTL(t *testing.T) {
	for _, c := range []struct {
		lim  backends.Limits
		want time.Duration
	}{
		{backends.Limits{MinTTL: 400 * time.Millisecond, MaxTTL: 4 * time.Second}, 4 * time.Second},   // zk tick=200ms
		{backends.Limits{MinTTL: 40 * time.Second, MaxTTL: 400 * time.Second}, 40 * time.Second},      // zk tick=20s
		{backends.Limits{MinTTL: 10 * time.Second, MaxTTL: 24 * time.Hour}, 10 * time.Second},         // consul
		{backends.Limits{MinTTL: 2 * time.Second, TTLGranularity: 3 * time.Second}, 12 * time.Second}, // a unit
	} {
		if got := queryTTL(c.lim); got != c.want {
			t.Errorf("queryTTL(%+v) = %v, want %v", c.lim, got, c.want)
		}
	}
}

// TestStatusOnZooKeeperShortTick: with tick=200ms the store's TTL range is
// 400ms–4s, which excludes the default TTL; status and observe, which use
// no session, work all the same, while run still checks --ttl.
func TestStatusOnZooKeeperShortTick(t *testing.T) {
	store := "zk://" + stores.ZooKeeper(t, 1)[0] + "/t?tick=200ms"
	st := start(t, "status", "--store", store, "--election", "a")
	if code := st.exit(t, 30*time.Second); code != exitNoLeader {
		t.Fatalf("status: exit %d, want %d\n%s", code, exitNoLeader, st.output())
	}
	obs := start(t, "observe", "--store", store, "--election", "a")
	obs.stdout.await(t, "a: no leader", 30*time.Second)
	r := start(t, "run", "--store", store, "--election", "a", "--", "true")
	if code := r.exit(t, 30*time.Second); code != 2 || !strings.Contains(r.output(), "--ttl, --margin, --identity, --wait, --label, --preempt-after or --damp*: lease: TTL 10s") {
		t.Fatalf("run with the default TTL: exit %d, want 2 naming --ttl\n%s", code, r.output())
	}
}

// TestSecretNeverPrintedZooKeeperConsul: a ZooKeeper digest password in
// the URL and a Consul token in a file are never printed by status,
// observe or run, nor by the error for a consul URL with user info.
func TestSecretNeverPrintedZooKeeperConsul(t *testing.T) {
	zkStore := "zk://alice:" + secret + "@" + stores.ZooKeeper(t, 1)[0] + "/t?tick=200ms"
	consulAddr := stores.Consul(t, 1)[0]
	token := writeFile(t, secret+"\n")
	debug := []string{"--election", "jobs/s", "--log-level", "debug", "--dial-timeout", "20s"}
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"status", "--store", zkStore, "--json"}, exitNoLeader},
		{[]string{"run", "--store", zkStore, "--ttl", "2s", "--", "true"}, 0},
		{[]string{"status", "--store", "consul://" + consulAddr + "/t", "--token-file", token}, exitNoLeader},
		{[]string{"run", "--store", "consul://" + consulAddr + "/t", "--token-file", token, "--", "true"}, 0},
		{[]string{"status", "--store", "consul://alice:" + secret + "@" + consulAddr + "/t"}, 2},
		{[]string{"status", "--store", zkStore + "&tick=1s"}, 2},
	}
	for _, c := range cases {
		in := start(t, append(append([]string{c.args[0]}, debug...), c.args[1:]...)...)
		code := in.exit(t, 60*time.Second)
		out := in.output()
		if code != c.code || strings.Contains(out, secret) {
			t.Errorf("%q: exit %d (want %d), output:\n%s", c.args, code, c.code, out)
		}
	}
	obs := start(t, append([]string{"observe", "--store", zkStore}, debug...)...)
	obs.stdout.await(t, "no leader", 30*time.Second)
	obs.cancel()
	obs.exit(t, 10*time.Second)
	if out := obs.output(); strings.Contains(out, secret) {
		t.Errorf("observe printed the password:\n%s", out)
	}
}

// TestZooKeeperClientLogs: go-zookeeper's own lines ("connected to ...")
// go through --log-level like leasehold's: on stderr at debug, not at the
// default warn.
func TestZooKeeperClientLogs(t *testing.T) {
	store := "zk://" + stores.ZooKeeper(t, 1)[0] + "/t?tick=200ms"
	for _, c := range []struct {
		level string
		want  bool
	}{{"debug", true}, {"warn", false}} {
		st := start(t, "status", "--store", store, "--election", "a", "--log-level", c.level)
		if code := st.exit(t, 30*time.Second); code != exitNoLeader {
			t.Fatalf("status: exit %d\n%s", code, st.output())
		}
		if got := strings.Contains(st.output(), "component=go-zookeeper"); got != c.want {
			t.Errorf("--log-level %s: go-zookeeper lines on stderr %v, want %v:\n%s", c.level, got, c.want, st.output())
		}
	}
}
