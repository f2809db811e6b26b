// Command leasehold runs leader elections on etcd, ZooKeeper or Consul.
//
//	leasehold run --store URL --election NAME -- CMD ARGS...
//	leasehold status --store URL --election NAME
//	leasehold observe --store URL --election NAME
//	leasehold handover --store URL --election NAME [--to ID]
//	leasehold shards status --store URL --group NAME
//	leasehold demo
//
// Run `leasehold COMMAND -h` for a command's flags. What each command
// promises is in docs/command.md of the repository; store URLs and
// credentials in docs/security.md. This doc says how run keeps its
// promise, and what the output formats hold.
//
// # Errors and exit codes
//
// Errors in the URL or the flags exit 2, as flag errors do: an address
// without a host or with a port outside 1..65535, an unknown, repeated or
// empty query parameter, a fragment, a TLS or secret file that cannot be
// read, a --log-level other than debug, info, warn and error, a duration
// flag out of its range (a --ttl or --dial-timeout of 0 or less, a
// negative --margin or --grace), and --ttl, --margin or --identity values
// the store's limits refuse. A store that cannot be reached, or refuses
// for want of rights, exits 1. A run whose CMD is not found exits 127,
// and one whose CMD is found but cannot be executed 126, as a shell, env
// and timeout do. status and observe neither campaign nor write: they
// take a TTL in the store's range, used only to pace their requests,
// whatever --ttl, --margin and --identity say. SIGTERM, SIGINT, SIGHUP
// and SIGQUIT end every command with 128+signal (143, 130, 129, 131) and
// no error line.
//
// # Stopping a term
//
// SIGQUIT stops the term as SIGTERM does and prints no goroutine dump. A
// stdout or stderr nobody reads any more (an ssh session without a
// terminal that hung up) does not kill leasehold (SIGPIPE, Go's default)
// before it has stopped the term: its writes fail, and it goes on. With
// --on-exit restart, each restart is logged with its delay, its number
// and how long the run was up:
//
//	leasehold: 2026-11-28T17:37:36.209781597Z restarting the child in 1.6s (restart 5; it was up 3ms)
//
// A run that stayed up 10 s or more starts the delays over at 100 ms, so
// a CMD that fails at once starts 5 times in its first 2 s, then twice a
// minute. While it waits, leasehold still leads, holds the key and renews
// it; the wait ends at once on a loss or a stop signal. On a handover
// (--preempt, leasehold handover) the key stays held while run stops the
// term as on a loss (for --margin at most; --grace ends before it); then
// run resigns, and its elector passes the key to the target in one write,
// with a new fencing token. The key is never free, so run campaigns again
// at once, behind the new leader, with no hold-off. If the pass cannot be
// made (the target left, the store refused), the key is deleted and the
// election decides afresh, run among the candidates. A run leader follows
// its candidate list (lease.Options.FollowRoster), so that leasehold
// handover reaches it.
//
// # The PID namespace form
//
// Each term runs in a PID namespace of its own, and a mount namespace for
// its own /proc. Its PID 1 is leasehold itself, re-executed from
// /proc/self/exe as a small init; CMD is not PID 1, because PID 1 ignores
// every signal it has no handler for, so SIGTERM would do nothing to most
// programs. The init starts CMD in a process group of its own, sends
// SIGTERM and SIGINT on to every process in the namespace, reaps them all,
// and, when CMD exits, sends SIGTERM to the rest and exits with CMD's code
// once they are gone or after --grace. When the init exits, the kernel
// SIGKILLs every process left in the namespace and reaps them before it
// reports the init's exit, so once leasehold has reaped the init the term
// has no process left. The init has Pdeathsig SIGKILL: if leasehold dies,
// SIGKILL included, the init dies and the kernel kills the namespace.
//
// Root gets the namespaces directly (CLONE_NEWPID|CLONE_NEWNS). Other
// users get them inside a user namespace of their own (CLONE_NEWUSER)
// that maps only their own uid and gid: CMD runs with the same uid and
// gid and no capabilities (the init holds CAP_SYS_ADMIN inside its user
// namespace only long enough to mount /proc); files of other users and
// groups show as owned by 65534, set-user-ID programs gain nothing, and
// setgroups is refused. The mount namespace is a slave of the host's:
// mounts made outside later still show inside; mounts CMD makes stay
// inside.
//
// # The subreaper form
//
// run tries the namespace at start with a real start of the init. If the
// kernel refuses both forms, or LEASEHOLD_RUN_NO_PIDNS=1 is set, it prints
// one warning with the kernel's reason and makes itself a child subreaper
// (PR_SET_CHILD_SUBREAPER): a process of the term whose parent dies is
// re-parented to leasehold, so every process of the term stays its
// descendant. At the end of a term it sends SIGTERM to CMD's process group
// and to every descendant it finds in /proc, waits until they are gone or
// --grace ends, then SIGKILLs every descendant until none is left,
// reaping the orphans. Signals go through a pidfd after a check of the
// process's start time, so a reused PID is never hit. leasehold treats
// every descendant as the term's: it starts nothing else (in-process
// tests that run several runs in one process must not use this form).
//
// A cgroup killed as one (cgroup.kill, cgroup v2) would need a delegated,
// writable cgroup, which most unprivileged users lack, and is not killed
// when leasehold dies unless something else watches it; the PID
// namespace covers both with no setup.
//
// # Output
//
// status --json prints one object: election, leader (a bool), and with a
// leader identity, token, session, since and value (if proclaimed), as
// observe --json prints them; then candidates, each with identity,
// session, priority, labels, joined (by the candidate's clock), may_lead,
// damped, superseded, leader, and for a handover request requester and
// request (its target; absent for the next in line). On a store that
// keeps no candidate list the candidates are left out, with a note on
// stderr. shards status --json prints group, shards, members (identity,
// weight, labels, leads, settled), not_members, without_leader, and
// left_out (records the members leave out, with the reason).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
)

const usage = `usage: leasehold <command> [flags]

commands:
  run       campaign and run a command while leading; stop it (SIGTERM, then
            SIGKILL) before the store could hand leadership to anyone else
  status    print an election's leader, fencing token, session and since when,
            and its candidates in succession order
  observe   stream an election's leader changes, including "no leader"
  handover  ask the leader to hand over, to a named candidate (--to) or the
            next in line; wait and print who leads, with the new token
  shards    status: print a shard group's members, the shards each leads
            and will lead once settled, and the shards without a leader
  demo      start an in-process etcd and three candidates; kill the leader,
            show the hand-over with increasing fencing tokens, and a guarded
            resource rejecting the stale leader's write; then a resign, a
            preemption by candidates of higher priority and an operator's
            handover to a named candidate

Store URLs: etcd://[user[:password]@]host:port[,host:port]/prefix,
zk://[user:password@]host:port[,...]/prefix[?tick=2s], consul://host:port/prefix.
Keep passwords and tokens out of ps with --password-file and --token-file.
Run 'leasehold <command> -h' for its flags.
`

func main() {
	if len(os.Args) > 1 && os.Args[1] == initArg {
		os.Exit(runInit(os.Args[2:], os.Stderr))
	}
	ctx, stop := notifySignals(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs one command line and returns the exit code. Errors are printed
// on one line. A stop signal ends every command with 128+signal, as a
// shell reports it, and no error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	code, err := dispatch(ctx, args, stdout, stderr)
	if _, ok := stopSignal(ctx); ok {
		return interruptedCode(ctx)
	}
	if err != nil && err != errHelp {
		fmt.Fprintln(stderr, "leasehold:", err)
	}
	if err != nil && isUsage(err) {
		code = 2
	}
	if err == errHelp {
		code = 0
	}
	return code
}

// dispatch runs the command args[0] names.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	switch args[0] {
	case "run":
		return runRun(ctx, args[1:], stderr)
	case "status":
		return runStatus(ctx, args[1:], stdout, stderr)
	case "observe":
		return runObserve(ctx, args[1:], stdout, stderr)
	case "handover":
		return runHandover(ctx, args[1:], stdout, stderr)
	case "shards":
		return runShards(ctx, args[1:], stdout, stderr)
	case "demo":
		return runDemo(ctx, stdout, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0, nil
	}
	return 2, fmt.Errorf("unknown command %q: want run, status, observe, handover, shards or demo (see leasehold -h)", args[0])
}
