package history

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// ShardConfig sets the allowances of CheckShards.
type ShardConfig struct {
	// Config is each shard's: Drift (check b), and Recovery and
	// FaultRecovery (check d: the shard owned again after each Heal).
	Config
	// Shards is the number of shards of the group: shards 0 to Shards-1,
	// named by their number in decimal in Event.Shard.
	Shards int
	// Balance is how soon after each Heal the group must be balanced
	// (check f), on top of FaultRecovery's allowance for the fault.
	Balance time.Duration
}

// CheckBalance is the name of check f, CheckShards' own.
const CheckBalance = "f: balanced after heal"

// ShardReport is what CheckShards found.
type ShardReport struct {
	// Violations are every shard's failed checks a to e, their Detail
	// prefixed with the shard, and the failed checks f; empty if all
	// passed.
	Violations []Violation
	// Leaderships are every shard's intervals, by shard number.
	Leaderships map[int][]Interval
	// Moves counts the leaderships that went to another member than the
	// shard's previous one.
	Moves int
	// MaxUnowned is the longest time a shard had no owner, between its
	// first owner and the end of the history.
	MaxUnowned time.Duration
	// ToBalance is, per Heal in order, how long until the group was
	// balanced, or -1 if it was not before the next Fault.
	ToBalance []time.Duration
	// Writes counts the writes, by guard kind.
	Writes map[string]WriteCount
}

// CheckShards judges the history of a shard group: each shard's own
// history (its events and those of no shard) with checks a to e of
// Check, and the group with check f: after each Heal, within Balance
// (plus the fault's FaultRecovery) every shard has exactly one owner, a
// live member (between its Join and its Leave or Crash), and each live
// member owns ⌊Shards/N⌋ or ⌈Shards/N⌉ of them, N the live members. A
// leadership counts until its member stopped acting or was paused.
// Check f is not judged for a Heal whose bound runs past the next Fault.
func CheckShards(evs []Event, cfg ShardConfig) ShardReport {
	per := make([][]Event, cfg.Shards)
	for _, e := range evs {
		if e.Shard == "" {
			for s := range per {
				per[s] = append(per[s], e)
			}
		} else if s, err := strconv.Atoi(e.Shard); err == nil && s >= 0 && s < cfg.Shards {
			per[s] = append(per[s], e)
		}
	}
	r := ShardReport{Leaderships: map[int][]Interval{}, Writes: map[string]WriteCount{}}
	for s, sub := range per {
		rep := Check(sub, cfg.Config)
		for _, v := range rep.Violations {
			v.Detail = fmt.Sprintf("shard %d: %s", s, v.Detail)
			r.Violations = append(r.Violations, v)
		}
		r.Leaderships[s] = rep.Leaderships
		r.Moves += moves(rep.Leaderships)
		r.MaxUnowned = max(r.MaxUnowned, maxUnowned(rep.Leaderships, evs))
		for g, c := range rep.Writes {
			w := r.Writes[g]
			r.Writes[g] = WriteCount{w.Accepted + c.Accepted, w.Rejected + c.Rejected}
		}
	}
	vs, tb := checkBalance(evs, r.Leaderships, cfg)
	r.Violations = append(r.Violations, vs...)
	r.ToBalance = tb
	return r
}

// moves counts the intervals whose candidate differs from the previous
// one's.
func moves(ivs []Interval) int {
	n := 0
	for i := 1; i < len(ivs); i++ {
		if ivs[i].Candidate != ivs[i-1].Candidate {
			n++
		}
	}
	return n
}

// maxUnowned returns the longest gap between the shard's intervals, from
// its first one to the end of the history.
func maxUnowned(ivs []Interval, evs []Event) time.Duration {
	if len(ivs) == 0 || len(evs) == 0 {
		return 0
	}
	var gap time.Duration
	covered := ivs[0].effEnd()
	for _, iv := range ivs[1:] {
		if iv.Start > covered {
			gap = max(gap, iv.Start.Sub(covered))
		}
		covered = max(covered, iv.effEnd())
	}
	if end := evs[len(evs)-1].At; covered < end {
		gap = max(gap, end.Sub(covered))
	}
	return gap
}

// edge is an owner's change at one instant: +1 at a leadership's start,
// -1 at its (effective) end; or a member's Join (+1) and Leave or Crash
// (-1), with shard -1.
type edge struct {
	at        Time
	candidate string
	shard     int
	delta     int
}

// checkBalance runs check f, and measures each Heal's time to balance.
func checkBalance(evs []Event, ivs map[int][]Interval, cfg ShardConfig) ([]Violation, []time.Duration) {
	edges := balanceEdges(evs, ivs)
	var vs []Violation
	var tb []time.Duration
	for i, e := range evs {
		if e.Kind != Heal {
			continue
		}
		bound := cfg.Balance + cfg.FaultRecovery[e.Fault]
		next := nextFault(evs[i+1:])
		at, ok := firstBalanced(edges, e.At, next, cfg.Shards)
		switch {
		case ok:
			tb = append(tb, at.Sub(e.At))
		default:
			tb = append(tb, -1)
		}
		if (!ok || at.Sub(e.At) > bound) && next > e.At.Add(bound) {
			vs = append(vs, Violation{CheckBalance, e.At, fmt.Sprintf(
				"the group was not balanced within %v after %s healed", bound, e.Fault)})
		}
	}
	return vs, tb
}

// balanceEdges returns the ownership and membership changes, in order of
// time; at one instant, ends before starts.
func balanceEdges(evs []Event, ivs map[int][]Interval) []edge {
	var out []edge
	for _, e := range evs {
		switch e.Kind {
		case Join:
			out = append(out, edge{e.At, e.Candidate, -1, 1})
		case Leave, Crash:
			out = append(out, edge{e.At, e.Candidate, -1, -1})
		}
	}
	for s, list := range ivs {
		for _, iv := range list {
			out = append(out, edge{iv.Start, iv.Candidate, s, 1})
			if end := iv.effEnd(); end != Open {
				out = append(out, edge{end, iv.Candidate, s, -1})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b edge) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta)) })
	return out
}

// firstBalanced replays edges and returns the first instant in [from,
// until) at which the group is balanced (a state that holds from before
// from counts from from).
func firstBalanced(edges []edge, from, until Time, shards int) (Time, bool) {
	live := map[string]int{} // member → Join count minus Leave/Crash count
	owners := make([]int, shards)
	owned := map[string]int{} // member → shards it owns
	ownerOf := make([]map[string]int, shards)
	for s := range ownerOf {
		ownerOf[s] = map[string]int{}
	}
	for i, ed := range edges {
		if ed.at >= until {
			break
		}
		if ed.shard < 0 {
			live[ed.candidate] += ed.delta
		} else {
			owners[ed.shard] += ed.delta
			owned[ed.candidate] += ed.delta
			ownerOf[ed.shard][ed.candidate] += ed.delta
		}
		next := Open // the state holds over [ed.at, next)
		if i+1 < len(edges) {
			next = edges[i+1].at
		}
		if next > from && next != ed.at && balanced(live, owners, owned, ownerOf) {
			return max(ed.at, from), true
		}
	}
	return 0, false
}

// balanced reports whether every shard has one live owner and every live
// member owns ⌊shards/N⌋ or ⌈shards/N⌉ of them.
func balanced(live map[string]int, owners []int, owned map[string]int, ownerOf []map[string]int) bool {
	n := 0
	for _, c := range live {
		if c > 0 {
			n++
		}
	}
	if n == 0 {
		return false
	}
	for s, c := range owners {
		if c != 1 {
			return false
		}
		for m, k := range ownerOf[s] {
			if k > 0 && live[m] <= 0 {
				return false
			}
		}
	}
	lo, hi := len(owners)/n, (len(owners)+n-1)/n
	for m, c := range live {
		if c > 0 && (owned[m] < lo || owned[m] > hi) {
			return false
		}
	}
	return true
}
