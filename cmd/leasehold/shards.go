package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/leasehold/leasehold/lease/shard"
)

const shardsUsage = `usage: leasehold shards status --store URL --group NAME [--shards N] [--json]

Prints a shard group (package lease/shard): each member with its weight,
the shards it leads and the shards it will lead once the group has settled,
then the leaders that are not members (a member that left, handing its
shards over), the records the members leave out (another shard count, a
bad weight) and the shards without a leader. --shards is the group's shard
count, by default the one its members publish. It reads the members' roster
once and each shard's leader once. --json prints one object. Exits 0 when
every shard has a leader, 4 when some have none.

flags:
`

// shardsQuery is the flags of shards status.
type shardsQuery struct {
	query
	shards int
}

func runShards(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) > 0 && isHelp(args[0]) {
		args = []string{"status", "-h"} // its usage is the one of status
	}
	if len(args) == 0 || args[0] != "status" {
		fmt.Fprint(stderr, shardsUsage)
		return 2, usageError{fmt.Errorf("shards: want the subcommand status")}
	}
	var q shardsQuery
	q.group = true
	e, closeAll, code, err := q.open(ctx, "shards status", shardsUsage, args[1:], stderr, func(fs *flag.FlagSet) {
		fs.Var(countFlag{&q.shards, 1, shard.MaxShards}, "shards", fmt.Sprintf("the group's shard count, a `number` from 1 to %d (default: as its members publish it)", shard.MaxShards))
	})
	if err != nil {
		return code, err
	}
	defer closeAll()
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := shard.ReadStatus(rctx, e, q.election, q.shards)
	if err != nil {
		return 1, err
	}
	if q.json {
		printShardsJSON(stdout, st)
	} else {
		printShards(stdout, st)
	}
	if len(st.Unowned()) > 0 {
		return exitNoLeader, nil
	}
	return 0, nil
}

// printShards prints st as a table of members, then the strangers and the
// shards without a leader.
func printShards(w io.Writer, st shard.Status) {
	un := st.Unowned()
	fmt.Fprintf(w, "%s: %d shards, %d members, %d without a leader\n", st.Group, st.Shards, len(st.Members), len(un))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  IDENTITY\tWEIGHT\tLEADS\tSETTLED\tLABELS")
	for _, m := range st.Members {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%s\n", m.Identity, m.Weight, m.Owns, m.Quota, formatLabels(m.Labels))
	}
	for _, id := range slices.Sorted(maps.Keys(st.Strangers())) {
		fmt.Fprintf(tw, "  %s\t-\t%d\t0\t(not a member)\n", id, st.Strangers()[id])
	}
	for _, id := range slices.Sorted(maps.Keys(st.Refused)) {
		fmt.Fprintf(tw, "  %s\t-\t-\t0\t(left out: %s)\n", id, st.Refused[id])
	}
	tw.Flush()
	if len(un) > 0 {
		fmt.Fprintf(w, "without a leader: %s\n", shardList(un, 20))
	}
}

// shardList prints up to n shard numbers, then how many more.
func shardList(s []int, n int) string {
	out := fmt.Sprint(s[:min(n, len(s))])
	if len(s) > n {
		out += fmt.Sprintf(" and %d more", len(s)-n)
	}
	return out
}

// shardsJSON is shards status's JSON.
type shardsJSON struct {
	Group     string               `json:"group"`
	Shards    int                  `json:"shards"`
	Members   []shard.MemberStatus `json:"members"`
	Strangers map[string]int       `json:"not_members,omitempty"`
	Refused   map[string]string    `json:"left_out,omitempty"`
	Unowned   []int                `json:"without_leader"`
}

func printShardsJSON(w io.Writer, st shard.Status) {
	un := st.Unowned()
	if un == nil {
		un = []int{}
	}
	b, _ := json.Marshal(shardsJSON{st.Group, st.Shards, st.Members, st.Strangers(), st.Refused, un})
	fmt.Fprintln(w, string(b))
}
