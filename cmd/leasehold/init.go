package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// initArg is the hidden argv[1] with which run re-executes leasehold
// (/proc/self/exe) as PID 1 of a term's PID namespace:
//
//	leasehold __leasehold_init probe
//	leasehold __leasehold_init GRACE PATH ARGV0 ARGS...   (fd 3: the lifeline)
//
// The CLI does not list it, and runInit refuses to run outside a new PID
// namespace.
const initArg = "__leasehold_init"

// runInit is the init of a term's PID namespace. CMD is not PID 1 itself,
// because PID 1 ignores every signal it has no handler for, so SIGTERM
// would do nothing. The init mounts a /proc of the namespace (so that CMD's
// PIDs and /proc agree), starts CMD in a process group of its own, sends
// SIGTERM and SIGINT on to every process of the namespace, and reaps them
// all. When CMD exits, the rest get SIGTERM; once they are gone, or after
// GRACE, the init exits with CMD's code (128+signal if a signal ended it),
// and its exit makes the kernel SIGKILL whatever is left in the namespace.
// It exits at once (137) when its lifeline reports that leasehold died.
// Exit codes of its own: 2 misuse, 125 setup failed, 127 CMD not found
// and 126 CMD found but not started (see startFailCode).
func runInit(args []string, stderr io.Writer) int {
	if os.Getpid() != 1 {
		// kill(-1) below would signal every process the caller may signal.
		fmt.Fprintf(stderr, "leasehold: %s is internal to leasehold run\n", initArg)
		return 2
	}
	if err := mountProc(); err != nil {
		fmt.Fprintf(stderr, "leasehold: init: %v\n", err)
		return 125
	}
	// CMD gets no capability the user namespace form gave the init.
	// Capabilities belong to threads: clear them on the one that forks CMD.
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	if len(args) == 1 && args[0] == "probe" {
		return 0
	}
	if len(args) < 3 {
		fmt.Fprintf(stderr, "leasehold: init: want GRACE PATH ARGV0 [ARGS...], got %q\n", args)
		return 2
	}
	grace, err := time.ParseDuration(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "leasehold: init: grace: %v\n", err)
		return 2
	}
	return supervise(grace, args[1], args[2:], stderr)
}

// mountProc gives the namespace its own /proc. Its mount namespace is a
// slave of the host's: mounts made outside later still show inside, and
// none made inside leaks out.
func mountProc() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make mounts slaves: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	return nil
}

// reaped is one child the init waited for.
type reaped struct {
	pid int
	ws  syscall.WaitStatus
}

// supervise starts CMD and runs the init's loop until CMD and the rest of
// the namespace are gone, or the grace after CMD's exit ends.
func supervise(grace time.Duration, path string, argv []string, stderr io.Writer) int {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env: os.Environ(), Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		fmt.Fprintf(stderr, "leasehold: start %s: %v\n", path, err)
		return startFailCode(err)
	}
	children := make(chan reaped)
	go reapAll(children)
	orphaned := make(chan struct{})
	go watchLifeline(orphaned)
	code := 0
	var drain <-chan time.Time
	for {
		select {
		case s := <-sigs:
			_ = syscall.Kill(-1, s.(syscall.Signal)) // every process in the namespace but the init
		case r, ok := <-children:
			if !ok {
				return code // no process left
			}
			if r.pid == pid {
				code = exitCode(r.ws)
				_ = syscall.Kill(-1, syscall.SIGTERM)
				drain = time.After(grace)
			}
		case <-drain:
			return code
		case <-orphaned:
			fmt.Fprintln(stderr, "leasehold: init: leasehold is gone; killing the term")
			return 128 + int(syscall.SIGKILL)
		}
	}
}

// watchLifeline closes orphaned when fd 3, the read end of a pipe whose
// write end only leasehold holds, reports EOF: leasehold has died.
func watchLifeline(orphaned chan<- struct{}) {
	f := os.NewFile(3, "lifeline")
	_, _ = io.Copy(io.Discard, f)
	close(orphaned)
}

// reapAll waits for every child of the init, orphans included, and closes
// out when none is left.
func reapAll(out chan<- reaped) {
	defer close(out)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return // ECHILD: CMD was reaped and every orphan too
		}
		out <- reaped{pid, ws}
	}
}

// exitCode is a shell's exit code for ws: the status, or 128+signal.
func exitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
