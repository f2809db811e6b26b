// Command leasehold runs leader elections on etcd, ZooKeeper or Consul.
//
//	leasehold run --store URL --election NAME -- CMD ARGS...
//	leasehold status --store URL --election NAME
//	leasehold observe --store URL --election NAME
//	leasehold handover --store URL --election NAME [--to ID]
//	leasehold demo
//
// Run `leasehold COMMAND -h` for a command's flags.
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
// on one line.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var code int
	var err error
	switch args[0] {
	case "run":
		code, err = runRun(ctx, args[1:], stderr)
	case "status":
		code, err = runStatus(ctx, args[1:], stdout, stderr)
	case "observe":
		code, err = runObserve(ctx, args[1:], stdout, stderr)
	case "handover":
		code, err = runHandover(ctx, args[1:], stdout, stderr)
	case "shards":
		code, err = runShards(ctx, args[1:], stdout, stderr)
	case "demo":
		if err = runDemo(ctx, stdout, args[1:]); err != nil {
			code = 1
		}
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		code, err = 2, fmt.Errorf("unknown command %q: want run, status, observe, handover, shards or demo (see leasehold -h)", args[0])
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
