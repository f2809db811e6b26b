package main

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// reapTick is how often the fallback looks at /proc while it stops a term.
const reapTick = 5 * time.Millisecond

// stopDescendants ends every descendant of leasehold, the fallback's whole
// term (leasehold starts no other processes, and as a child subreaper it
// inherits the term's orphans): SIGTERM to CMD's process group and to each
// descendant, then, once they are all gone or after grace, SIGKILL to each
// until none is left. It reaps the orphans; ch's own Wait reaps CMD.
func stopDescendants(ch *child, grace time.Duration) {
	killGroup(ch, syscall.SIGTERM)
	signalAll(ch, unix.SIGTERM)
	deadline := time.Now().Add(grace)
	tick := time.NewTicker(reapTick)
	defer tick.Stop()
	for len(living(ch)) > 0 && time.Now().Before(deadline) {
		<-tick.C
	}
	killGroup(ch, syscall.SIGKILL)
	for signalAll(ch, unix.SIGKILL) > 0 {
		<-tick.C
	}
	<-ch.exited
}

// killGroup sends sig to CMD's process group while CMD is not yet reaped
// (its PID, the group's ID, cannot be reused before); the walk of /proc
// finds the group's other members anyway.
func killGroup(ch *child, sig syscall.Signal) {
	select {
	case <-ch.exited:
	default:
		_ = syscall.Kill(-ch.pid, sig)
	}
}

// reapOrphans reaps, while CMD runs, the term's processes re-parented to
// leasehold once they exit (leasehold learns of it by SIGCHLD), so that a
// long term does not pile up zombies. stopDescendants reaps the rest.
func reapOrphans(ch *child) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGCHLD)
	defer signal.Stop(sigs)
	for {
		select {
		case <-sigs:
			living(ch)
		case <-ch.exited:
			return
		}
	}
}

// living is the descendants of leasehold that have not ended; it reaps
// the zombies that are leasehold's own orphans.
func living(ch *child) []proc {
	var out []proc
	self := os.Getpid()
	for _, p := range descendants(self) {
		switch {
		case p.state != 'Z':
			out = append(out, p)
		case p.ppid == self && p.pid != ch.pid:
			_, _ = unix.Wait4(p.pid, nil, unix.WNOHANG, nil)
		}
	}
	return out
}

// signalAll sends sig to every living descendant of leasehold and returns
// how many there were, CMD included until it is reaped.
func signalAll(ch *child, sig unix.Signal) int {
	ps := living(ch)
	for _, p := range ps {
		signalProc(p, sig)
	}
	select {
	case <-ch.exited:
		return len(ps)
	default:
		return len(ps) + 1
	}
}

// signalProc sends sig to p through a pidfd, after checking that the PID is
// still p's: a process that is not leasehold's own child may be reaped by
// its parent and its PID reused between the walk and the signal.
func signalProc(p proc, sig unix.Signal) {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if errors.Is(err, unix.ENOSYS) {
		_ = unix.Kill(p.pid, sig) // Linux before 5.3
		return
	}
	if err != nil {
		return // gone
	}
	defer unix.Close(fd)
	if gone(p) {
		return
	}
	_ = unix.PidfdSendSignal(fd, sig, nil, 0)
}
