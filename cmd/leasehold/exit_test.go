package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExitCodes: every store command exits 2 with one line for an error
// in the URL or the flags (the command's package doc), found before any contact
// with a store, and 1 for a store it cannot reach.
func TestExitCodes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pem")
	tail := map[string][]string{"run": {"--", "true"}}
	for _, c := range []struct {
		name  string
		store string
		flags []string
		code  int
	}{
		{"port out of range", "etcd://127.0.0.1:99999/p", nil, 2},
		{"no host", "etcd://:2379/p", nil, 2},
		{"no port", "consul://127.0.0.1/p", nil, 2},
		{"two consul agents", "consul://127.0.0.1:1,127.0.0.1:2/p", nil, 2},
		{"zk port out of range", "zk://127.0.0.1:0/p", nil, 2},
		{"zk path with an empty segment", "zk://127.0.0.1:1/bad//p", nil, 2},
		{"zk tick below a millisecond", "zk://127.0.0.1:1/p?tick=1ns", nil, 2},
		{"missing --cacert", "etcd://127.0.0.1:1/p", []string{"--cacert", missing}, 2},
		{"missing --cert and --key", "etcd://127.0.0.1:1/p", []string{"--cert", missing, "--key", missing}, 2},
		{"--cert without --key", "consul://127.0.0.1:1/p", []string{"--cert", missing}, 2},
		{"missing --cacert on zk", "zks://127.0.0.1:1/p", []string{"--cacert", missing}, 2},
		{"missing --password-file", "etcd://127.0.0.1:1/p", []string{"--user", "u", "--password-file", missing}, 2},
		{"unknown scheme", "redis://127.0.0.1:1/p", nil, 2},
		{"unknown flag", "etcd://127.0.0.1:1/p", []string{"--bogus"}, 2},
		{"unreachable store", "etcd://127.0.0.1:1/p", []string{"--dial-timeout", "1s"}, 1},
	} {
		for _, cmd := range []string{"run", "status", "observe", "handover"} {
			t.Run(c.name+"/"+cmd, func(t *testing.T) {
				args := append([]string{cmd, "--store", c.store, "--election", "a"}, c.flags...)
				in := start(t, append(args, tail[cmd]...)...)
				code := in.exit(t, 10*time.Second)
				out := in.stderr.all.String()
				if code != c.code || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "leasehold: ") {
					t.Errorf("exit %d, stderr %q; want %d and one leasehold: line", code, out, c.code)
				}
			})
		}
	}
}
