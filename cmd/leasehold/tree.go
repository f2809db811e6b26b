package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// noPIDNSEnv, set to 1, makes run use the subreaper form even where a PID
// namespace is permitted (for tests, and for CMDs that must see the host's
// PIDs).
const noPIDNSEnv = "LEASEHOLD_RUN_NO_PIDNS"

// tree is how run confines the processes of a term.
//
// The strong form runs each term in a PID namespace of its own, whose init
// is leasehold itself (runInit). When the init exits, the kernel SIGKILLs
// every process left in the namespace, whatever their process group or
// session, and the init has Pdeathsig SIGKILL, so it dies with leasehold.
// Root gets the namespace directly; other users with a user namespace
// around it, mapping only their own uid and gid.
//
// The fallback, where the kernel refuses both, makes leasehold a child
// subreaper: descendants whose parent dies are re-parented to leasehold,
// so a walk of /proc from leasehold's PID finds every process of the term,
// and each term ends with SIGTERM, the grace, and SIGKILL for all of them
// until none is left. What it cannot do: if leasehold itself is SIGKILLed,
// Pdeathsig kills CMD only, and CMD's descendants are re-parented to
// leasehold's own reaper and live on.
type tree struct {
	pidns *syscall.SysProcAttr // the namespace flags and maps; nil: fallback
	exe   string               // leasehold's own binary, for the init
}

// chooseTree tries the PID namespace forms in order of strength, each with
// a real start of the init, and falls back to the subreaper. warning is
// empty for the strong form; otherwise one line naming the weaker form and
// why the stronger ones were refused (the errno, or the init's words).
func chooseTree() (t tree, warning string, err error) {
	why := noPIDNSEnv + "=1"
	if os.Getenv(noPIDNSEnv) != "1" {
		t.exe = "/proc/self/exe" // this very binary, even if its file was replaced since
		var errs [2]error
		for i, attr := range []*syscall.SysProcAttr{nsAttr(false), nsAttr(true)} {
			if errs[i] = probe(t.exe, attr); errs[i] == nil {
				t.pidns = attr
				return t, "", nil
			}
		}
		why = fmt.Sprintf("PID namespace: %v; with a user namespace: %v", errs[0], errs[1])
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return tree{}, "", fmt.Errorf("no PID namespace (%s) and no child subreaper: %w", why, err)
	}
	return tree{}, "warning: no PID namespace for CMD (" + why + "); " +
		"stopping each term's processes as their subreaper instead: if leasehold is SIGKILLed, only CMD dies, not its descendants", nil
}

// nsAttr is the attributes of a term's init: its own PID and mount
// namespaces (and user namespace, for users without CAP_SYS_ADMIN),
// its own process group, and SIGKILL when leasehold's thread that started
// it dies.
func nsAttr(user bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL,
		Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
	if user {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
		// The init runs as the user's own uid, so execve drops the
		// capabilities the new user namespace gave it; it needs
		// CAP_SYS_ADMIN there to mount its /proc, and drops it before CMD.
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
	return a
}

// probe starts the init in probe mode: it mounts its /proc and exits.
func probe(exe string, attr *syscall.SysProcAttr) error {
	c := exec.Command(exe, initArg, "probe")
	c.SysProcAttr = attr
	var out strings.Builder
	c.Stderr = &out
	if err := c.Run(); err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return fmt.Errorf("%w (%s)", err, msg)
		}
		return err
	}
	return nil
}

// command is the exec.Cmd that runs CMD (path is CMD's resolved argv[0])
// for one term: through the init in the strong form, directly otherwise,
// each in a process group of its own with Pdeathsig SIGKILL. In the strong
// form lifeline is the write end of a pipe whose read end is the init's fd
// 3: keep it open while the init runs; when leasehold dies it closes, and
// the init exits. That covers what Pdeathsig cannot: leasehold dying
// before the init set it, and getppid, with which Go checks for that, is 0
// in a new PID namespace.
func (t tree) command(grace time.Duration, path string, argv []string) (c *exec.Cmd, lifeline *os.File, err error) {
	if t.pidns == nil {
		c = exec.Command(path, argv[1:]...)
		c.Args[0] = argv[0]
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return c, nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	c = exec.Command(t.exe, append([]string{initArg, grace.String(), path}, argv...)...)
	attr := *t.pidns
	c.SysProcAttr = &attr
	c.ExtraFiles = []*os.File{r}
	return c, w, nil
}
