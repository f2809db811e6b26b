package faults

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/integration/history"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
)

// Shard groups (package lease/shard) under the same faults: groupMembers
// member processes (the candidate program with -shards), each one elector
// on links of its own, join one group of groupShards shards and, while
// each holds a shard, write every groupEvery to that shard's fenced
// resource (a fencing.Guard per shard), checking the shard's
// Leadership first. Each cycle waits for the group to be balanced (every
// shard written to by one live member, each member writing to its share),
// then aims its fault at the member holding the most shards. On top of the
// election's fault kinds, the group's own (shardKinds): a member joins, one
// leaves gracefully (Group.Leave, its shards handed over), one crashes. The
// history is judged by history.CheckShards: checks a to e per shard, and
// f, the group balanced within a bound after each heal.

const (
	group        = "faults-shards"
	groupShards  = 32
	groupMembers = 4
	groupEvery   = 200 * time.Millisecond
	// groupFresh is how recent a shard's last admitted write must be for
	// the driver to count its writer as its acting owner.
	groupFresh = 5 * groupEvery
)

// shardKinds are the faults of a group's membership.
var shardKinds = []fault{
	{"member-join", (*run).memberJoin},
	{"member-leave", (*run).memberLeave},
	{"member-crash", (*run).memberCrash},
}

// memberJoin starts one more member.
func (r *run) memberJoin(*candidate) {
	r.drv.add(history.Event{Kind: history.Fault, Fault: "member-join"})
	r.c.start()
	r.drv.add(history.Event{Kind: history.Heal, Fault: "member-join"})
}

// memberLeave makes cd leave the group gracefully (SIGTERM: Group.Leave)
// and waits for its exit.
func (r *run) memberLeave(cd *candidate) {
	r.drv.add(history.Event{Kind: history.Fault, Fault: "member-leave", Candidate: cd.id})
	r.drv.add(history.Event{Kind: history.Leave, Candidate: cd.id})
	r.c.stop(cd)
	r.drv.add(history.Event{Kind: history.Heal, Fault: "member-leave", Candidate: cd.id})
}

// memberCrash cuts cd's links and kills it: it leaves nothing, its
// session expires. After 1.5×TTL a new member joins in its place.
func (r *run) memberCrash(cd *candidate) {
	r.drv.add(history.Event{Kind: history.Fault, Fault: "member-crash", Candidate: cd.id})
	if err := cd.toxic(time.Hour, 0, []string{"upstream", "downstream"}); err != nil {
		r.t.Fatal(err)
	}
	r.c.kill(cd)
	r.drv.add(history.Event{Kind: history.Crash, Candidate: cd.id})
	r.hold()
	r.c.start()
	r.drv.add(history.Event{Kind: history.Heal, Fault: "member-crash", Candidate: cd.id})
}

// shardResults gathers the shard runs' outcomes for the report.
var shardResults struct {
	sync.Mutex
	runs []shardOutcome
}

// shardOutcome is one shard run's result.
type shardOutcome struct {
	backend string
	ttl     time.Duration
	kinds   []fault
	ran     map[string]int
	cfg     history.ShardConfig
	report  history.ShardReport
	took    time.Duration
	// stopped: why the run stopped before its cycles were done (the group
	// not balanced within the driver's bound), or "".
	stopped string
}

// shardsSelected returns the backends whose shard groups run:
// LEASEHOLD_FAULTS_SHARDS is "off", a comma-separated subset of the
// selected backends, or unset or "only" (no election runs) for those of
// the selected backends with shard cycles by default (in mixed mode or a
// soak: all of them).
func shardsSelected(selected map[string]bool) map[string]bool {
	m := map[string]bool{}
	switch v := os.Getenv("LEASEHOLD_FAULTS_SHARDS"); v {
	case "off":
		return nil
	case "", "only":
		for _, b := range allBackends {
			m[b.name] = selected[b.name] && (b.shardCycles > 0 || soak())
		}
	default:
		for name := range strings.SplitSeq(v, ",") {
			m[name] = selected[name]
		}
	}
	return m
}

// onlyShards reports whether only shard groups run
// (LEASEHOLD_FAULTS_SHARDS=only).
func onlyShards() bool { return os.Getenv("LEASEHOLD_FAULTS_SHARDS") == "only" }

// shardRun is one backend's shard group run.
type shardRun struct {
	*run
	fence   *shardFence
	stopped string // see shardOutcome.stopped
}

// runShards runs a shard group through kinds, on a single-node store when
// store is nil, else on the 3-node store cluster.
func runShards(t *testing.T, b backend, bin string, store *stores.Cluster, kinds []fault) {
	var addrs []string
	n, name := cycles(t, b.shardCycles), b.name+" shards"
	if store == nil {
		addrs = []string{b.start(t)}
	} else {
		addrs, name = store.Addrs(), b.name+" (3 nodes) shards"
	}
	fence, h := newShardFence(groupShards)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	args := append(append([]string{"-election", group, "-fence", srv.URL, "-shards", fmt.Sprint(groupShards),
		"-every", groupEvery.String()}, b.args...), checkArgs(t)...)
	if os.Getenv("LEASEHOLD_FAULTS_DEBUG") != "" {
		args = append(args, "-debug")
	}
	obs, err := lease.New(b.observer(t, addrs), lease.Options{TTL: b.ttl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = obs.Close(context.Background()) })
	r := &run{t: t, b: b, obs: obs, ran: map[string]int{}, start: time.Now(), store: store}
	r.c = newCluster(t, bin, addrs, args)
	keep(t, name, r.c.dir)
	drvPath := filepath.Join(r.c.dir, "driver.jsonl")
	rec, err := history.Create(drvPath, "driver")
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	r.drv = record{t, rec}
	r.c.started = func(cd *candidate) { r.drv.add(history.Event{Kind: history.Join, Candidate: cd.id}) }
	for range groupMembers {
		r.c.start()
	}
	sr := &shardRun{run: r, fence: fence}
	for i := 0; i < n && r.timeLeft(); i++ {
		r.cycle = i
		f := kinds[i%len(kinds)]
		if sr.stopped = sr.awaitBalanced(); sr.stopped != "" {
			break
		}
		f.apply(r, sr.target())
		r.ran[f.name]++
		if (i+1)%25 == 0 {
			t.Logf("%s: %d fault cycles in %v", name, i+1, time.Since(r.start).Round(time.Second))
		}
		if t.Failed() {
			break
		}
	}
	if sr.stopped == "" {
		sr.stopped = sr.awaitBalanced()
	}
	r.c.stopAll()
	evs, err := history.ReadFiles(append(r.c.hists, drvPath)...)
	if err != nil {
		t.Fatal(err)
	}
	sr.judge(name, kinds, evs)
}

// awaitBalanced waits until every shard is written to by a live member
// since the wait began, and each live member writes to ⌊M/N⌋ or ⌈M/N⌉
// shards. After a generous bound (check f judges the real bound) it
// fails the test and returns why, in a line for the report; the run
// stops, and its history is judged all the same. A write from before
// the wait does not count: an owner that stopped just before a heal
// would still look like one for groupFresh, and the next fault would
// start on a shard without an owner.
func (sr *shardRun) awaitBalanced() (stopped string) {
	since := time.Now()
	bound := 3*(sr.b.ttl+sr.b.recovery) + 3*sr.b.ttl + 30*time.Second
	if sr.store != nil {
		bound += 3 * (sr.b.storeRecovery + sr.b.restartRecovery)
	}
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	tick := time.NewTicker(groupEvery / 2)
	defer tick.Stop()
	for {
		counts, all := sr.fence.acting(since)
		if all && balancedCounts(counts, sr.c.cands) {
			return ""
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			idle := sr.idleKeys(since)
			sr.t.Errorf("the group is not balanced over %d members within %v: acting %v (all shards: %t)\n%s%s",
				len(sr.c.cands), bound, counts, all, idle, sr.c.logs())
			return fmt.Sprintf("not balanced within %v after cycle %d; %s", bound, sr.cycle+1,
				strings.TrimSpace(strings.ReplaceAll(idle, "\n", "; ")))
		}
	}
}

// idleKeys renders, for each shard without a write since since, its
// leader key as the store shows it now: held by a session no member acts
// for, or free with no member taking it.
func (sr *shardRun) idleKeys(since time.Time) string {
	var b strings.Builder
	for _, s := range sr.fence.idle(since) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		li, err := sr.obs.Leader(ctx, shard.Election(group, s, groupShards))
		cancel()
		fmt.Fprintf(&b, "shard %d without an owner: key held by %q, session %q, token %d (read error: %v)\n",
			s, li.Identity, li.Session, li.Token, err)
	}
	return b.String()
}

// balancedCounts reports whether counts (shards acting, by member) give
// every running member its share, and no other member any.
func balancedCounts(counts map[string]int, running map[string]*candidate) bool {
	n := len(running)
	if n == 0 {
		return false
	}
	lo, hi := groupShards/n, (groupShards+n-1)/n
	for id := range counts {
		if running[id] == nil {
			return false
		}
	}
	for id := range running {
		if counts[id] < lo || counts[id] > hi {
			return false
		}
	}
	return true
}

// target returns the running member acting on the most shards (the
// lowest id on a tie).
func (sr *shardRun) target() *candidate {
	counts, _ := sr.fence.acting(time.Time{})
	ids := slices.Sorted(maps.Keys(sr.c.cands))
	slices.SortStableFunc(ids, func(a, b string) int { return counts[b] - counts[a] })
	return sr.c.cands[ids[0]]
}

// judge checks the merged history with history.CheckShards and keeps the
// outcome for the report.
func (sr *shardRun) judge(name string, kinds []fault, evs []history.Event) {
	renew := sr.b.ttl / 2
	recovery := sr.b.ttl + renew + sr.b.recovery
	cfg := history.ShardConfig{Config: history.Config{Drift: 10 * time.Millisecond, Recovery: recovery},
		Shards: groupShards,
		// Owned again, then moved to their owners once those have been
		// members for Settle (the TTL), each move a handover: a TTL more.
		Balance: recovery + 2*sr.b.ttl}
	if sr.store != nil {
		cfg.FaultRecovery = map[string]time.Duration{"store-kill": sr.b.storeRecovery, "partition": sr.b.storeRecovery,
			"isolate": sr.b.storeRecovery, "store-restart": sr.b.restartRecovery + sr.b.storeRecovery}
	}
	rep := history.CheckShards(evs, cfg)
	for _, v := range rep.Violations {
		sr.t.Errorf("violation: %v", v)
	}
	if len(rep.Violations) > 0 {
		sr.t.Logf("member logs:\n%s", sr.c.logs())
	}
	o := shardOutcome{backend: name, ttl: sr.b.ttl, kinds: kinds, ran: sr.ran, cfg: cfg, report: rep,
		took: time.Since(sr.start), stopped: sr.stopped}
	total := 0
	for _, n := range sr.ran {
		total += n
	}
	if rep.Moves <= total || rep.Writes[history.GuardFence].Accepted == 0 {
		sr.t.Errorf("the run shows too little activity to judge: %d moves over %d fault cycles, writes %+v",
			rep.Moves, total, rep.Writes)
	}
	sr.t.Logf("%s: %d fault cycles in %v, %d violations, %d moves, max unowned %v, to balance %s, writes %+v",
		name, total, o.took.Round(time.Second), len(rep.Violations), rep.Moves, rep.MaxUnowned.Round(time.Millisecond),
		medMax(sortedDurations(rep.ToBalance)), rep.Writes)
	shardResults.Lock()
	shardResults.runs = append(shardResults.runs, o)
	shardResults.Unlock()
}

// sortedDurations returns the non-negative durations of ds, sorted.
func sortedDurations(ds []time.Duration) []time.Duration {
	var out []time.Duration
	for _, d := range ds {
		if d >= 0 {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// shardFence is the group's fenced resources: one fencing.Guard per
// shard, at /s/<shard>, each remembering who last had a write admitted.
type shardFence struct {
	mu   sync.Mutex
	last []admission // by shard
}

// admission is a write a shard's guard admitted: its member and when.
type admission struct {
	member string
	at     time.Time
}

// newShardFence returns the resources of shards shards and their handler.
func newShardFence(shards int) (*shardFence, http.Handler) {
	f := &shardFence{last: make([]admission, shards)}
	mux := http.NewServeMux()
	for s := range shards {
		g := &fencing.Guard{}
		mux.Handle(fmt.Sprintf("/s/%d", s), g.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, req *http.Request) {
			body, _ := io.ReadAll(req.Body)
			f.admit(s, string(body))
		})))
	}
	return f, mux
}

func (f *shardFence) admit(s int, member string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last[s] = admission{member, time.Now()}
}

// fresh reports whether a is a write admitted within groupFresh and after
// since.
func (a admission) fresh(since time.Time) bool {
	return a.member != "" && time.Since(a.at) <= groupFresh && !a.at.Before(since)
}

// idle returns the shards without a write admitted within groupFresh and
// after since.
func (f *shardFence) idle(since time.Time) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int
	for s, a := range f.last {
		if !a.fresh(since) {
			out = append(out, s)
		}
	}
	return out
}

// acting returns how many shards each member had a write admitted to
// within groupFresh and after since, and whether every shard had one.
func (f *shardFence) acting(since time.Time) (map[string]int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	counts, all := map[string]int{}, true
	for _, a := range f.last {
		if !a.fresh(since) {
			all = false
			continue
		}
		counts[a.member]++
	}
	return counts, all
}

// runShardGroups runs, outside mixed mode, a shard group on a single-node
// store of each backend shardsSelected names, through the client-side
// kinds and the group's own.
func runShardGroups(t *testing.T, want map[string]bool, bin string) {
	kinds := kindsSelected(slices.Concat(faultKinds, shardKinds))
	for _, b := range allBackends {
		if shardsSelected(want)[b.name] && len(kinds) > 0 {
			t.Run(b.name+"-shards", func(t *testing.T) { runShards(t, b, bin, nil, kinds) })
		}
	}
}

// renderShards renders the shard groups' section of the report, a line
// per run, if any ran.
func renderShards(runs []shardOutcome) string {
	if len(runs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Shard groups\n\n%d shards (`lease/shard`), %d member processes at the start, each writing every %v to a\n", groupShards, groupMembers, groupEvery)
	b.WriteString("fenced resource per shard it holds. On top of the kinds above, at the member holding the most shards:\n")
	b.WriteString("member-join, member-leave, member-crash. Checks (a)–(e) per shard, and (f): after each heal, within\n")
	b.WriteString("the balance bound (plus (d)'s store recovery after a store fault), every shard owned by one\nlive member, each owning ⌊M/N⌋ or ⌈M/N⌉.\n\n")
	for _, o := range runs {
		total, kinds := 0, []string{}
		for _, f := range o.kinds {
			total += o.ran[f.name]
			kinds = append(kinds, fmt.Sprintf("%s %d", f.name, o.ran[f.name]))
		}
		w := o.report.Writes[history.GuardFence]
		fmt.Fprintf(&b, "- %s, TTL %v: %d fault cycles (%s) in %v; %s; %d moves; longest unowned %v; balanced after a heal in %s (bound %v + store recovery); writes accepted / rejected %d / %d.\n",
			o.backend, o.ttl, total, strings.Join(kinds, ", "), o.took.Round(time.Second), violations(o.report.Violations), o.report.Moves,
			o.report.MaxUnowned.Round(time.Millisecond), medMax(sortedDurations(o.report.ToBalance)), o.cfg.Balance, w.Accepted, w.Rejected)
		if o.stopped != "" {
			fmt.Fprintf(&b, "  **Stopped early:** %s.\n", o.stopped)
		}
	}
	return b.String()
}

// TestBalancedCounts: the driver's wait for a balanced group counts every
// running member's share, and no one else's.
func TestBalancedCounts(t *testing.T) {
	running := map[string]*candidate{"c1": {}, "c2": {}, "c3": {}}
	for _, c := range []struct {
		counts map[string]int
		want   bool
	}{
		{map[string]int{"c1": 11, "c2": 11, "c3": 10}, true},
		{map[string]int{"c1": 12, "c2": 10, "c3": 10}, false}, // 12 > ⌈32/3⌉
		{map[string]int{"c1": 16, "c2": 16}, false},           // c3 owns none
		{map[string]int{"c1": 11, "c2": 11, "c3": 9, "c9": 1}, false},
	} {
		if got := balancedCounts(c.counts, running); got != c.want {
			t.Errorf("balancedCounts(%v) = %t, want %t", c.counts, got, c.want)
		}
	}
}
