package history

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var shardCfg = ShardConfig{Config: cfg, Shards: 4, Balance: 4 * time.Second}

// on puts e on shard s.
func on(s int, e Event) Event { e.Shard = strconv.Itoa(s); return e }

func join(at Time, c string) Event { return Event{Kind: Join, At: at, Candidate: c} }

// goodGroup is a clean history of a group of 4 shards: a and b own two
// each; a's link is cut, b takes a's shards, and after the heal hands two
// back to a; every late write of a is refused.
func goodGroup() []Event {
	evs := []Event{join(0, "a"), join(0, "b"),
		on(0, lead(10*ms, "a", 1)), on(1, lead(10*ms, "a", 1)), on(2, lead(10*ms, "b", 1)), on(3, lead(10*ms, "b", 1)),
		on(0, write(20*ms, 21*ms, "a", 1, GuardFence, true)), on(2, write(20*ms, 21*ms, "b", 1, GuardFence, true)),
		fault(1000*ms, "cut", "a"),
		on(0, unlead(1500*ms, "a", 1)), on(1, unlead(1500*ms, "a", 1)),
		heal(2500*ms, "cut"),
		on(0, lead(2600*ms, "b", 2)), on(1, lead(2600*ms, "b", 2)),
		on(0, write(2700*ms, 2701*ms, "b", 2, GuardFence, true)),
		on(0, write(2800*ms, 2801*ms, "a", 1, GuardFence, false)), // a's straggler, refused
		on(0, unlead(5000*ms, "b", 2)), on(1, unlead(5000*ms, "b", 2)),
		on(0, lead(5010*ms, "a", 3)), on(1, lead(5010*ms, "a", 3)),
		on(0, write(5020*ms, 5021*ms, "a", 3, GuardFence, true)),
	}
	sortByAt(evs)
	return evs
}

func sortByAt(evs []Event) {
	slices.SortStableFunc(evs, func(a, b Event) int { return int(a.At - b.At) })
}

func TestShardsClean(t *testing.T) {
	r := CheckShards(goodGroup(), shardCfg)
	if len(r.Violations) != 0 {
		t.Fatalf("violations on a clean history: %v", r.Violations)
	}
	if r.Moves != 4 || len(r.ToBalance) != 1 || r.ToBalance[0] != 2510*time.Millisecond || r.MaxUnowned != 1100*time.Millisecond {
		t.Fatalf("moves %d, to balance %v, max unowned %v; want 4, [2.51s], 1.1s", r.Moves, r.ToBalance, r.MaxUnowned)
	}
	if w := r.Writes[GuardFence]; w.Accepted != 4 || w.Rejected != 1 {
		t.Fatalf("writes %+v, want 4 accepted, 1 rejected", w)
	}
}

// Each judgement fails on a history broken in its own way, on one shard.
func TestShardsViolations(t *testing.T) {
	for _, c := range []struct {
		name, check, detail string
		edit                func([]Event) []Event
	}{
		{"token not increasing", CheckTokens, "shard 1:", func(evs []Event) []Event {
			return replace(evs, on(1, lead(2600*ms, "b", 2)), on(1, lead(2600*ms, "b", 1)))
		}},
		{"two owners at once", CheckOverlap, "shard 0:", func(evs []Event) []Event {
			evs = replace(evs, on(0, unlead(1500*ms, "a", 1)), on(0, unlead(2650*ms, "a", 1)))
			return evs
		}},
		{"stale write accepted", CheckStale, "shard 0:", func(evs []Event) []Event {
			return replace(evs, on(0, write(2800*ms, 2801*ms, "a", 1, GuardFence, false)),
				on(0, write(2800*ms, 2801*ms, "a", 1, GuardFence, true)))
		}},
		{"shard not owned again", CheckRecovery, "shard 1:", func(evs []Event) []Event {
			evs = remove(evs, on(1, lead(2600*ms, "b", 2)), on(1, unlead(5000*ms, "b", 2)))
			return replace(evs, on(1, lead(5010*ms, "a", 3)), on(1, lead(6000*ms, "a", 3)))
		}},
		{"write after a successor began", CheckLate, "shard 0:", func(evs []Event) []Event {
			// a never saw its loss: it acts on, writing after b began.
			evs = remove(evs, on(0, unlead(1500*ms, "a", 1)), on(0, write(2800*ms, 2801*ms, "a", 1, GuardFence, false)))
			return append(evs, on(0, unlead(2610*ms, "a", 1)), on(0, write(2605*ms, 2606*ms, "a", 1, GuardFence, false)))
		}},
		{"never balanced", CheckBalance, "not balanced", func(evs []Event) []Event {
			// b keeps all four shards.
			return remove(evs, on(0, unlead(5000*ms, "b", 2)), on(1, unlead(5000*ms, "b", 2)),
				on(0, lead(5010*ms, "a", 3)), on(1, lead(5010*ms, "a", 3)), on(0, write(5020*ms, 5021*ms, "a", 3, GuardFence, true)))
		}},
		{"balanced too late", CheckBalance, "within 4s", func(evs []Event) []Event {
			evs = replace(evs, on(0, lead(5010*ms, "a", 3)), on(0, lead(6600*ms, "a", 3)))
			return replace(evs, on(0, write(5020*ms, 5021*ms, "a", 3, GuardFence, true)), on(0, write(6700*ms, 6701*ms, "a", 3, GuardFence, true)))
		}},
		{"owner not live", CheckBalance, "not balanced", func(evs []Event) []Event {
			// a left the group but its leaderships go on: not a live owner.
			return append(evs, Event{Kind: Leave, At: 2550 * ms, Candidate: "a"}, join(2550*ms, "c"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs := c.edit(goodGroup())
			sortByAt(evs)
			r := CheckShards(evs, shardCfg)
			if !slices.ContainsFunc(r.Violations, func(v Violation) bool {
				return v.Check == c.check && strings.Contains(v.Detail, c.detail)
			}) {
				t.Fatalf("want a violation of %q (%q), got %v", c.check, c.detail, r.Violations)
			}
		})
	}
}

// TestShardsBalanceNotJudgedPastNextFault: a Heal whose bound runs past
// the next Fault is not judged by check f.
func TestShardsBalanceNotJudgedPastNextFault(t *testing.T) {
	evs := remove(goodGroup(), on(0, unlead(5000*ms, "b", 2)), on(1, unlead(5000*ms, "b", 2)),
		on(0, lead(5010*ms, "a", 3)), on(1, lead(5010*ms, "a", 3)), on(0, write(5020*ms, 5021*ms, "a", 3, GuardFence, true)))
	evs = append(evs, fault(3000*ms, "pause", "b"))
	sortByAt(evs)
	if r := CheckShards(evs, shardCfg); slices.ContainsFunc(r.Violations, func(v Violation) bool { return v.Check == CheckBalance }) {
		t.Fatalf("check f judged a heal cut short by the next fault: %v", r.Violations)
	}
}

func replace(evs []Event, old, new Event) []Event {
	i := slices.Index(evs, old)
	if i < 0 {
		panic("no such event")
	}
	evs[i] = new
	return evs
}

func remove(evs []Event, rm ...Event) []Event {
	for _, e := range rm {
		i := slices.Index(evs, e)
		if i < 0 {
			panic("no such event")
		}
		evs = slices.Delete(evs, i, i+1)
	}
	return evs
}
