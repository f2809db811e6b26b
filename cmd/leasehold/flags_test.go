package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// refusedFlag is a command line refused before any store is contacted:
// exit 2 and one leasehold: line holding each of want.
type refusedFlag struct {
	args []string
	want []string
}

// checkRefusedFlags runs each case in the test process. The store, if
// any, is a closed port: a case that reached it would exit 1.
func checkRefusedFlags(t *testing.T, cases []refusedFlag) {
	t.Helper()
	for _, c := range cases {
		in := start(t, c.args...)
		code := in.exit(t, 10*time.Second)
		out := in.stderr.all.String()
		if code != 2 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "leasehold: ") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one leasehold: line", c.args, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%q: stderr %q lacks %q", c.args, out, w)
			}
		}
	}
}

// closedStore is the flags of a store command whose store is a closed
// port.
var closedStore = []string{"--store", "etcd://127.0.0.1:1/t", "--election", "a", "--dial-timeout", "1s"}

// storeArgs is a store command's command line: closedStore, then flags.
func storeArgs(cmd string, flags ...string) []string {
	args := append(append([]string{cmd}, closedStore...), flags...)
	if cmd == "run" {
		args = append(args, "--", "true")
	}
	return args
}

// TestTTLRefused: a --ttl of 0 or less given on the command line, or one
// that does not parse (beyond what a duration holds), is a usage error
// naming --ttl and the stores' ranges, for run and handover, which
// campaign; demo's names its own range. Without --ttl the default is used.
func TestTTLRefused(t *testing.T) {
	stores := []string{"-ttl", "etcd: whole seconds ≥ 2s; ZooKeeper: 2–20 tickTime; Consul: 10s–24h"}
	demo := []string{"-ttl", "whole seconds from 2s to 1h"}
	checkRefusedFlags(t, []refusedFlag{
		{storeArgs("run", "--ttl", "0"), stores},
		{storeArgs("run", "--ttl", "-2s"), stores},
		{storeArgs("run", "--ttl", "3000000h"), stores},
		{storeArgs("handover", "--ttl", "0"), stores},
		{storeArgs("status", "--ttl", "3000000h"), stores},
		{[]string{"demo", "--ttl", "0"}, demo},
		{[]string{"demo", "--ttl", "1s"}, demo},
		{[]string{"demo", "--ttl", "2500ms"}, demo},
		{[]string{"demo", "--ttl", "2h"}, demo},
		{[]string{"demo", "--ttl", "3000000h"}, demo},
		{[]string{"demo", "--bogus"}, []string{"-bogus"}},
		{[]string{"demo", "extra"}, []string{`"extra"`}},
	})
	// Past the flags: the closed port.
	for _, args := range [][]string{storeArgs("run"), storeArgs("status", "--ttl", "0")} {
		in := start(t, args...)
		if code := in.exit(t, 10*time.Second); code != 1 {
			t.Errorf("%q: exit %d, want 1 (the store cannot be reached)\n%s", args, code, in.output())
		}
	}
}

// TestHelpEverySubcommand: -h and --help print the command's usage on
// stdout and exit 0, with nothing on stderr, for every command.
func TestHelpEverySubcommand(t *testing.T) {
	for _, args := range [][]string{
		{"-h"}, {"--help"}, {"help"},
		{"run", "-h"}, {"run", "--help"}, {"status", "--help"}, {"observe", "--help"},
		{"handover", "--help"}, {"shards", "--help"}, {"shards", "-h"}, {"shards", "status", "--help"},
		{"demo", "--help"}, {"demo", "-h"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c := exec.CommandContext(ctx, binary(t), args...)
		var stdout, stderr strings.Builder
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		cancel()
		if err != nil || !strings.HasPrefix(stdout.String(), "usage: leasehold") || stderr.Len() > 0 {
			t.Errorf("%q: %v, stdout %.40q, stderr %q; want exit 0, the usage, no stderr", args, err, stdout.String(), stderr.String())
		}
	}
}

// TestElectorOptionsRefusedBeforeContact: elector options that conflict
// or are bad in themselves (lease.Options.Validate) are refused before
// the store is contacted, exit 2 naming the option, for the commands that
// campaign; status and observe use none of them.
func TestElectorOptionsRefusedBeforeContact(t *testing.T) {
	checkRefusedFlags(t, []refusedFlag{
		{storeArgs("run", "--ttl", "10s", "--margin", "10s"), []string{"--margin", "SafetyMargin 10s", "TTL 10s"}},
		{storeArgs("run", "--identity", "a\nb"), []string{"--identity", "Identity"}},
		{storeArgs("handover", "--ttl", "4s", "--margin", "5s"), []string{"SafetyMargin 5s"}},
	})
	in := start(t, storeArgs("status", "--ttl", "10s", "--margin", "10s")...)
	if code := in.exit(t, 10*time.Second); code != 1 {
		t.Errorf("status with --margin at --ttl: exit %d, want 1 (the store cannot be reached)\n%s", code, in.output())
	}
}

// TestNegativeDurationsRefused: every duration flag of every command
// refuses a value below its range before any store is contacted: exit 2
// naming the flag. --dial-timeout takes no 0 (its default is 5s); a 0
// that the flag's help gives as its default (--margin, --grace) is taken.
func TestNegativeDurationsRefused(t *testing.T) {
	cases := []refusedFlag{
		{storeArgs("run", "--margin", "-1s"), []string{"--margin -1s"}},
		{storeArgs("run", "--grace", "-1s"), []string{"--grace -1s"}},
		{storeArgs("run", "--preempt", "--preempt-after", "-1s"), []string{"--preempt-after", "-1s"}},
		{storeArgs("run", "--damp", "2", "--damp-window", "-1s"), []string{"--damp", "-1s"}},
		{storeArgs("run", "--damp", "2", "--damp-penalty", "-1s"), []string{"--damp", "-1s"}},
		{storeArgs("run", "--damp", "2", "--damp-cap", "-1s"), []string{"Damping.Cap -1s", "above 0"}},
		{storeArgs("handover", "--timeout", "-1s"), []string{"--timeout -1s"}},
		{[]string{"demo", "--preempt-after", "-1s"}, []string{"--preempt-after -1s"}},
		{[]string{"demo", "--preempt-after", "0"}, []string{"--preempt-after 0s"}},
	}
	for _, cmd := range []string{"run", "status", "observe", "handover"} {
		for _, d := range []string{"-1s", "0"} {
			cases = append(cases, refusedFlag{storeArgs(cmd, "--dial-timeout", d), []string{"--dial-timeout", "above 0"}})
		}
	}
	cases = append(cases, refusedFlag{[]string{"shards", "status", "--store", "etcd://127.0.0.1:1/t", "--group", "g",
		"--dial-timeout", "-1s"}, []string{"--dial-timeout -1s"}})
	checkRefusedFlags(t, cases)
	for _, args := range [][]string{storeArgs("run", "--margin", "0", "--grace", "0"), storeArgs("status", "--margin", "-1s")} {
		in := start(t, args...)
		if code := in.exit(t, 10*time.Second); code != 1 {
			t.Errorf("%q: exit %d, want 1 (the store cannot be reached)\n%s", args, code, in.output())
		}
	}
}
