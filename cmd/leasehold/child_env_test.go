package main

import (
	"bytes"
	"crypto/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunChildGetsNoCredentials: whatever source run takes etcd's password
// from (the URL in --store or in LEASEHOLD_STORE, --user,
// LEASEHOLD_PASSWORD, --password-file), and with a ZooKeeper digest and
// Consul credentials in the environment besides, no process of the term
// (the init, CMD) has a secret in its environment or arguments, nor the
// variables that carried them; and run prints none at --log-level debug.
func TestRunChildGetsNoCredentials(t *testing.T) {
	pw, zk, token, auth, fromFile := randomSecret(), randomSecret(), randomSecret(), randomSecret(), randomSecret()
	host := authEtcdWith(t, pw)
	env := []string{
		"LEASEHOLD_STORE=etcd://root:" + pw + "@" + host + "/t",
		"LEASEHOLD_PASSWORD=" + pw,
		"LEASEHOLD_ZK_DIGEST=zk:" + zk,
		"CONSUL_HTTP_TOKEN=" + token,
		"CONSUL_HTTP_AUTH=consul:" + auth,
		"CONSUL_HTTP_TOKEN_FILE=" + writeFile(t, fromFile+"\n"),
	}
	secrets := map[string]string{"etcd's password": pw, "the ZooKeeper digest's password": zk,
		"the Consul token": token, "the Consul HTTP auth password": auth, "the Consul token file's content": fromFile}
	cases := []struct {
		name  string
		flags []string
	}{
		{"LEASEHOLD_STORE", nil},
		{"store-url", []string{"--store", "etcd://root:" + pw + "@" + host + "/t"}},
		{"user-flag", []string{"--store", "etcd://" + host + "/t", "--user", "root:" + pw}},
		{"LEASEHOLD_PASSWORD", []string{"--store", "etcd://root@" + host + "/t"}},
		{"password-file", []string{"--store", "etcd://root@" + host + "/t", "--password-file", writeFile(t, pw+"\n")}},
	}
	for _, m := range treeModes {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				args := append(append([]string{"run"}, c.flags...), "--election", "jobs/env", "--ttl", "2s",
					"--log-level", "debug", "--", "sleep", "1000")
				a := startProc(t, append(env, m.env...), args...)
				a.token(t, 20*time.Second)
				checkTermHasNo(t, a, secrets)
				_ = a.c.Process.Signal(syscall.SIGTERM)
				if code := a.code(t, 10*time.Second); code != 128+int(syscall.SIGTERM) {
					t.Errorf("exit %d, want 143", code)
				}
				out := a.stderr.all.String()
				for what, s := range secrets {
					if strings.Contains(out, s) {
						t.Errorf("run printed %s:\n%s", what, out)
					}
				}
			})
		}
	}
}

// checkTermHasNo checks, once CMD (sleep) runs, every process of a's term
// for secrets and for the variables that carry credentials.
func checkTermHasNo(t *testing.T, a *leaseholdProc, secrets map[string]string) {
	t.Helper()
	var term []proc
	waitFor(t, 10*time.Second, "CMD started", func() bool {
		term = tagged(a.tag, a.c.Process.Pid)
		return slices.ContainsFunc(term, func(p proc) bool { return bytes.HasPrefix(procFile(p, "cmdline"), []byte("sleep\x00")) })
	})
	for _, p := range term {
		env, argv := procFile(p, "environ"), procFile(p, "cmdline")
		for what, s := range secrets {
			if bytes.Contains(env, []byte(s)) || bytes.Contains(argv, []byte(s)) {
				t.Errorf("process %d (%q) has %s in its environment or arguments", p.pid, argv, what)
			}
		}
		for _, name := range secretEnv {
			if bytes.Contains(append([]byte{0}, env...), []byte("\x00"+name)) {
				t.Errorf("process %d (%q) has %s in its environment", p.pid, argv, name)
			}
		}
	}
}

// procFile reads /proc/PID/name of p; nothing if p is gone.
func procFile(p proc, name string) []byte {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/" + name)
	return b
}

// randomSecret is a unique secret, found nowhere but where a test puts it.
func randomSecret() string {
	return "sec-" + rand.Text()
}
