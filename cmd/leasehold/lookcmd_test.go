package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunCmdNotRunnable: a CMD that is not found exits 127 and one found
// but not executable 126, as a shell reports them, with one line naming
// CMD, before any campaign (the store is a closed port: a campaign would
// exit 1).
func TestRunCmdNotRunnable(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd  string
		code int
		want string
	}{
		{"/nonexistent/cmd", 127, `CMD "/nonexistent/cmd" not found`},
		{"leasehold-no-such-command", 127, `CMD "leasehold-no-such-command" not found`},
		{plain, 126, `CMD "` + plain + `" cannot be run: permission denied`},
		{dir, 126, `CMD "` + dir + `" cannot be run: is a directory`},
	} {
		in := start(t, append(append([]string{"run"}, closedStore...), "--", c.cmd)...)
		code := in.exit(t, 10*time.Second)
		out := in.stderr.all.String()
		if code != c.code || strings.Count(out, "\n") != 1 || !strings.Contains(out, c.want) {
			t.Errorf("run -- %s: exit %d, stderr %q; want %d and one line with %q", c.cmd, code, out, c.code, c.want)
		}
	}
}

// TestRunCmdGoneBeforeLeading: a CMD found at start but gone when run
// comes to lead is 127 too; run resigns, and the next candidate leads.
func TestRunCmdGoneBeforeLeading(t *testing.T) {
	store := "etcd://" + etcdServer(t) + "/t"
	job := filepath.Join(t.TempDir(), "job")
	if err := os.WriteFile(job, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := runAs(t, store, "jobs/gone", "A")
	a.stderr.await(t, "started child", 20*time.Second)
	b := start(t, "run", "--store", store, "--election", "jobs/gone", "--ttl", "2s", "--identity", "B", "--", job)
	awaitCandidates(t, store, "jobs/gone", "A", "B")
	c := runAs(t, store, "jobs/gone", "C") // in line behind B
	awaitCandidates(t, store, "jobs/gone", "A", "B", "C")
	if err := os.Remove(job); err != nil {
		t.Fatal(err)
	}
	a.cancel()
	code := b.exit(t, 20*time.Second)
	if out := b.stderr.all.String(); code != exitNotFound || !strings.Contains(out, `CMD "`+job+`" not found`) {
		t.Errorf("B: exit %d, stderr:\n%s\nwant %d and CMD not found", code, out, exitNotFound)
	}
	c.stderr.await(t, "started child", 20*time.Second)
}

// TestInitStartFailure: the init of a PID namespace exits 127 for a CMD
// that is not there and 126 for one it cannot execute, as run does.
func TestInitStartFailure(t *testing.T) {
	tr, warning, err := chooseTree()
	if err != nil {
		t.Fatal(err)
	}
	if tr.pidns == nil {
		t.Skip(warning)
	}
	plain := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/nonexistent/cmd": exitNotFound, plain: exitCannotRun} {
		c, lifeline, err := tr.command(time.Second, path, []string{"cmd"})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := spawn(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-ch.exited:
			if code := ch.code(); code != want {
				t.Errorf("%s: init exit code %d, want %d", path, code, want)
			}
		case <-time.After(10 * time.Second):
			_ = c.Process.Kill()
			t.Errorf("%s: the init did not exit within 10s", path)
		}
		lifeline.Close()
	}
}
