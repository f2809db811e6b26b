package faults

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/integration/history"
	"github.com/leasehold/leasehold/integration/stores"
	"github.com/leasehold/leasehold/lease"
)

const election = "faults"

// fault is one kind of fault, applied to the current leader and healed
// before it returns.
type fault struct {
	name  string
	apply func(r *run, cd *candidate)
}

var faultKinds = []fault{
	{"cut", func(r *run, cd *candidate) { r.linkFault("cut", cd, time.Hour, 0, "upstream", "downstream") }},
	{"latency-low", func(r *run, cd *candidate) {
		r.linkFault("latency-low", cd, r.bound()*lowPercent/100, r.bound()/40, "downstream")
	}},
	{"latency-high", func(r *run, cd *candidate) {
		r.linkFault("latency-high", cd, r.bound()*3/2, r.bound()/20, "downstream")
	}},
	{"pause", (*run).pause},
	{"kill", (*run).kill},
}

// storeFaultKinds are the store-side faults, run on 3-node store clusters
// (run.store): each is aimed at the store, and its Fault event names the
// election leader of the moment so that the report measures how that
// leader fared.
var storeFaultKinds = []fault{
	{"store-kill", (*run).storeKill},
	{"partition", (*run).partition},
	{"isolate", (*run).isolate},
	{"store-restart", (*run).storeRestart},
}

// allFaultKinds is every kind, in report order.
var allFaultKinds = append(append([]fault{}, faultKinds...), storeFaultKinds...)

// usable returns kinds without the isolate fault if it cannot run here
// (stores.IsolationUnavailable), saying so; under CI=true that fails the
// test instead.
func usable(t *testing.T, kinds []fault) []fault {
	why := stores.IsolationUnavailable()
	if why == "" {
		return kinds
	}
	if stores.UnderCI() {
		t.Fatalf("the isolate fault cannot run under CI: %s", why)
	}
	t.Logf("isolate fault NOT run: %s", why)
	var out []fault
	for _, k := range kinds {
		if k.name != "isolate" {
			out = append(out, k)
		}
	}
	return out
}

// results gathers every backend's outcome for the report.
var results struct {
	sync.Mutex
	byBackend []outcome
}

func TestFaults(t *testing.T) {
	want := selected()
	bin := buildCandidate(t)
	if os.Getenv("LEASEHOLD_FAULTS_MIXED") != "" {
		runMixed(t, want, bin)
		writeReport(t)
		return
	}
	runShardGroups(t, want, bin)
	if onlyShards() {
		writeReport(t)
		return
	}
	clientKinds := kindsSelected(faultKinds)
	for _, b := range allBackends {
		if want[b.name] && len(clientKinds) > 0 {
			t.Run(b.name, func(t *testing.T) { runBackend(t, b, bin, nil, clientKinds) })
		}
	}
	storeWant := storeSelected(want)
	storeKinds := kindsSelected(storeFaultKinds)
	if len(storeKinds) == 0 {
		storeWant = nil
	}
	if len(storeWant) > 0 {
		storeKinds = usable(t, storeKinds)
	}
	for _, b := range allBackends {
		switch {
		case storeWant[b.name]:
			t.Run(b.name+"-store", func(t *testing.T) { runBackend(t, b, bin, b.cluster(t), storeKinds) })
		case want[b.name]:
			t.Logf("store faults on %s NOT run: LEASEHOLD_FAULTS_STORE=%q, LEASEHOLD_FAULTS_KINDS=%q",
				b.name, os.Getenv("LEASEHOLD_FAULTS_STORE"), os.Getenv("LEASEHOLD_FAULTS_KINDS"))
		}
	}
	writeReport(t)
}

// runMixed runs, for every selected backend, every fault kind (client and
// store) rotating on one 3-node store cluster: its elections and its
// shard group, each a run of its own. The runs go at once, as many as
// LEASEHOLD_SOAK_PARALLEL says (3 by default), the longest first: Consul's
// (TTL 10 s) before the others, elections before shard groups (turns).
// This is the soak's mode (LEASEHOLD_FAULTS_MIXED=1).
func runMixed(t *testing.T, want map[string]bool, bin string) {
	kinds := usable(t, kindsSelected(allFaultKinds))
	groupKinds := kindsSelected(slices.Concat(kinds, shardKinds))
	if len(groupKinds) == 0 {
		t.Fatalf("LEASEHOLD_FAULTS_KINDS=%q selects no fault kind", os.Getenv("LEASEHOLD_FAULTS_KINDS"))
	}
	groups := shardsSelected(want)
	type mixedRun struct {
		name string
		run  func(t *testing.T)
	}
	var runs []mixedRun
	for _, b := range slices.SortedStableFunc(slices.Values(allBackends), func(a, b backend) int { return cmp.Compare(b.ttl, a.ttl) }) {
		if want[b.name] && !onlyShards() && len(kinds) > 0 {
			runs = append(runs, mixedRun{b.name, func(t *testing.T) { runBackend(t, b, bin, b.cluster(t), kinds) }})
		}
		if groups[b.name] && len(groupKinds) > 0 {
			runs = append(runs, mixedRun{b.name + "-shards", func(t *testing.T) { runShards(t, b, bin, b.cluster(t), groupKinds) }})
		}
	}
	t.Run("mixed", func(t *testing.T) {
		tr := newTurns(t, len(runs), soakParallel(t))
		for i, r := range runs {
			started := false
			t.Run(r.name, func(t *testing.T) {
				started = true
				t.Parallel()
				defer tr.take(i)()
				r.run(t)
			})
			if !started { // left out by -run
				tr.pass(i)
			}
		}
	})
}

// storeSelected returns the backends whose store faults run:
// LEASEHOLD_FAULTS_STORE is "off", a comma-separated subset of the selected
// backends, or unset for all of them.
func storeSelected(selected map[string]bool) map[string]bool {
	v := os.Getenv("LEASEHOLD_FAULTS_STORE")
	switch v {
	case "":
		return selected
	case "off":
		return nil
	}
	m := map[string]bool{}
	for _, name := range strings.Split(v, ",") {
		m[name] = selected[name]
	}
	return m
}

// kindsSelected returns the kinds named by LEASEHOLD_FAULTS_KINDS (a
// comma-separated list), or all of them if it is unset.
func kindsSelected(kinds []fault) []fault {
	v := os.Getenv("LEASEHOLD_FAULTS_KINDS")
	if v == "" {
		return kinds
	}
	names := strings.Split(v, ",")
	var out []fault
	for _, k := range kinds {
		if slices.Contains(names, k.name) {
			out = append(out, k)
		}
	}
	return out
}

// checkArgs returns the candidates' -check flag: LEASEHOLD_FAULTS_CHECK=err
// makes them check Leadership.Err before each write, as applications did
// before Leadership.Valid, to show that check e catches what a pause lets
// through.
func checkArgs(t *testing.T) []string {
	switch v := os.Getenv("LEASEHOLD_FAULTS_CHECK"); v {
	case "", "valid":
		return []string{"-check", "valid"}
	case "err":
		return []string{"-check", "err"}
	default:
		t.Fatalf("LEASEHOLD_FAULTS_CHECK=%q: want valid or err", v)
		return nil
	}
}

// selected returns the backends named by LEASEHOLD_FAULTS_BACKENDS, or all.
func selected() map[string]bool {
	m := map[string]bool{}
	v := os.Getenv("LEASEHOLD_FAULTS_BACKENDS")
	for _, b := range allBackends {
		m[b.name] = v == ""
	}
	for name := range strings.SplitSeq(v, ",") {
		if name = strings.TrimSpace(name); name != "" {
			m[name] = true
		}
	}
	return m
}

// cycles returns LEASEHOLD_SOAK_CYCLES, or def.
func cycles(t *testing.T, def int) int {
	v := os.Getenv("LEASEHOLD_SOAK_CYCLES")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 100000 {
		t.Fatalf("LEASEHOLD_SOAK_CYCLES=%q: want a number of cycles from 1 to 100000", v)
	}
	return n
}

// run is one backend's run.
type run struct {
	t      *testing.T
	b      backend
	c      *cluster
	obs    *lease.LeaseElector // observes, never campaigns
	fenced *tokens             // tokens the fenced resource admitted
	drv    record
	ran    map[string]int
	start  time.Time
	store  *stores.Cluster // the 3-node store of the store faults, or nil
	calm   time.Time       // when the last store fault's recovery allowance ends (awaitCalm)
	cycle  int             // the current cycle's number
	pol    *policyRun      // the policy events (policy_test.go)
}

// runBackend rotates through kinds, aimed at the current leader: on a
// single-node store it starts when store is nil (client-side kinds only),
// or on the 3-node store cluster.
func runBackend(t *testing.T, b backend, bin string, store *stores.Cluster, kinds []fault) {
	var addrs []string
	n, name := cycles(t, b.cycles), b.name
	if store == nil {
		addrs = []string{b.start(t)}
	} else {
		addrs, n, name = store.Addrs(), cycles(t, b.storeCycles), b.name+" (3 nodes)"
	}
	guard := &fencing.Guard{}
	seen := &tokens{next: map[fencing.Token]chan struct{}{}}
	fence := httptest.NewServer(guard.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, req *http.Request) {
		if tok, err := fencing.FromHeader(req.Header); err == nil {
			seen.admit(tok)
		}
	})))
	t.Cleanup(fence.Close)
	args := append(append([]string{"-election", election, "-fence", fence.URL}, b.args...), checkArgs(t)...)
	if os.Getenv("LEASEHOLD_FAULTS_DEBUG") != "" {
		args = append(args, "-debug")
	}
	obs, err := lease.New(b.observer(t, addrs), lease.Options{TTL: b.ttl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = obs.Close(context.Background()) })
	req, err := lease.New(b.observer(t, addrs), lease.Options{TTL: b.ttl, Identity: "requester"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = req.Close(context.Background()) })
	r := &run{t: t, b: b, obs: obs, fenced: seen, ran: map[string]int{}, start: time.Now(), store: store}
	r.pol = newPolicyRun(r, req)
	args = append(args, "-control", r.pol.url, "-preempt-after", r.preemptAfter().String())
	r.c = newCluster(t, bin, addrs, args)
	keep(t, name, r.c.dir)
	drvPath := filepath.Join(r.c.dir, "driver.jsonl")
	rec, err := history.Create(drvPath, "driver")
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	r.drv = record{t, rec}
	for range 3 {
		r.c.start()
	}
	for i := 0; i < n && r.timeLeft(); i++ {
		r.cycle = i
		f := kinds[i%len(kinds)]
		pk, during := r.policyEvent(i, f, len(kinds))
		r.settle(pk != "")
		cd, tok := r.leaderToken()
		wait := func() {}
		if pk != "" && during {
			wait = r.runPolicy(pk, true, cd, tok)
		}
		f.apply(r, cd)
		wait()
		r.ran[f.name]++
		if pk != "" && !during {
			r.awaitCalm()
			r.settle(true)
			cd, tok = r.leaderToken()
			r.runPolicy(pk, false, cd, tok)()
		}
		if (i+1)%25 == 0 {
			t.Logf("%s: %d fault cycles in %v", name, i+1, time.Since(r.start).Round(time.Second))
		}
		if t.Failed() {
			break
		}
	}
	r.leader() // a leader after the last heal
	r.c.stopAll()
	evs, err := history.ReadFiles(append(r.c.hists, drvPath)...)
	if err != nil {
		t.Fatal(err)
	}
	r.judge(name, kinds, evs)
	r.judgeMisses(name)
}

// keep copies the run's histories and candidate logs to
// LEASEHOLD_FAULTS_KEEP, if set, when the test ends: a run that failed
// part way (no leader came) is kept too, as it stood then. Without it, a
// run that failed is kept in a new directory under os.TempDir, and the
// test log says where: a soak's violation can be read without a rerun.
func keep(t *testing.T, name, dir string) {
	t.Cleanup(func() { // before dir's own cleanup, made earlier, removes it
		k := os.Getenv("LEASEHOLD_FAULTS_KEEP")
		if k == "" {
			if !t.Failed() {
				return
			}
			var err error
			if k, err = os.MkdirTemp("", "leasehold-faults-"); err != nil {
				t.Errorf("keep the failed run's histories and logs: %v", err)
				return
			}
		}
		dst := filepath.Join(k, strings.NewReplacer(" ", "_", "(", "", ")", "").Replace(name))
		if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
			t.Errorf("keep the run's histories and logs: %v", err)
			return
		}
		t.Logf("%s: histories and candidate logs kept in %s", name, dst)
	})
}

// timeLeft reports whether another cycle fits before the test's deadline,
// keeping a margin for the last heal, the shutdown and the other backends.
func (r *run) timeLeft() bool {
	dl, ok := r.t.Deadline()
	return !ok || time.Until(dl) > 20*r.b.ttl+2*time.Minute
}

// leader waits for a leader among the running candidates that acts (the
// fenced resource admits a write with its token after the call: the store
// may show a key whose holder has not yet learnt that it won, or one that
// already stopped) and returns it,
// or fails the test after a generous bound.
func (r *run) leader() *candidate {
	cd, _ := r.leaderToken()
	return cd
}

// leaderToken is leader, with the leader's token.
func (r *run) leaderToken() (*candidate, uint64) {
	bound := 3*(r.b.ttl+r.b.recovery) + 30*time.Second
	if r.store != nil {
		bound += 3 * (r.b.storeRecovery + r.b.restartRecovery)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	ch, err := r.obs.Observe(ctx, election)
	if err != nil {
		r.t.Fatal(err)
	}
	var cand *candidate
	var tok uint64
	var acting <-chan struct{}
	for {
		select {
		case info, ok := <-ch:
			if !ok {
				r.t.Fatalf("no acting leader among the running candidates within %v\n%s", bound, r.c.logs())
			}
			cand, tok, acting = r.c.cands[info.Identity], uint64(info.Token), nil
			if info.HasLeader() && cand != nil {
				acting = r.fenced.wait(info.Token)
			}
		case <-acting:
			return cand, tok
		}
	}
}

// tokens tells when the fenced resource admits a token: wait(tok) is
// closed at the next admission of tok after the call, which shows that its
// holder acts now.
type tokens struct {
	mu   sync.Mutex
	next map[fencing.Token]chan struct{}
}

// admit wakes the waiters for tok.
func (s *tokens) admit(tok fencing.Token) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.next[tok]; ok {
		close(c)
		delete(s.next, tok)
	}
}

// wait returns a channel closed at the next admission of tok.
func (s *tokens) wait(tok fencing.Token) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.next[tok]
	if !ok {
		c = make(chan struct{})
		s.next[tok] = c
	}
	return c
}

// hold keeps a fault in place for 1.5×TTL.
func (r *run) hold() { time.Sleep(r.b.ttl * 3 / 2) }

// bound is the renewal latency below which the candidates' leaders keep
// their leadership (lease.Options.LatencyBound at the run's TTL).
func (r *run) bound() time.Duration { return lease.Options{TTL: r.b.ttl}.LatencyBound() }

// linkFault adds latency (an hour: a cut) to the leader's link in the
// given directions (toxiproxy streams: upstream, client to store;
// downstream, store to client), holds it and heals it.
func (r *run) linkFault(name string, cd *candidate, latency, jitter time.Duration, streams ...string) {
	r.drv.add(history.Event{Kind: history.Fault, Fault: name, Candidate: cd.id})
	if err := cd.toxic(latency, jitter, streams); err != nil {
		r.t.Fatal(err)
	}
	r.hold()
	if err := cd.heal(); err != nil {
		r.t.Fatal(err)
	}
	r.drv.add(history.Event{Kind: history.Heal, Fault: name, Candidate: cd.id})
}

// pause SIGSTOPs the leader, holds, and SIGCONTs it.
func (r *run) pause(cd *candidate) {
	r.drv.add(history.Event{Kind: history.Fault, Fault: "pause", Candidate: cd.id})
	if err := cd.signal(syscall.SIGSTOP); err != nil {
		r.t.Fatal(err)
	}
	r.drv.add(history.Event{Kind: history.Pause, Candidate: cd.id})
	r.hold()
	if err := cd.signal(syscall.SIGCONT); err != nil {
		r.t.Fatal(err)
	}
	r.drv.add(history.Event{Kind: history.Heal, Fault: "pause", Candidate: cd.id})
}

// kill SIGKILLs the leader and starts a replacement.
func (r *run) kill(cd *candidate) {
	r.drv.add(history.Event{Kind: history.Fault, Fault: "kill", Candidate: cd.id})
	r.c.kill(cd)
	r.drv.add(history.Event{Kind: history.Crash, Candidate: cd.id})
	r.drv.add(history.Event{Kind: history.Heal, Fault: "kill", Candidate: cd.id})
	r.c.start()
}

// judge checks the merged history and keeps the outcome for the report.
func (r *run) judge(name string, kinds []fault, evs []history.Event) {
	renew := r.b.ttl / 2 // above the candidates' RenewInterval, Hold/2
	cfg := history.Config{Drift: 10 * time.Millisecond, Recovery: r.b.ttl + renew + r.b.recovery}
	if r.store != nil {
		// The store's own recovery: a new store leader after a kill or a
		// partition, a whole cluster serving again after a restart.
		cfg.FaultRecovery = map[string]time.Duration{}
		for _, f := range storeFaultKinds {
			cfg.FaultRecovery[f.name] = r.storeAllowance(f.name)
		}
	}
	rep := history.Check(evs, cfg)
	if os.Getenv("LEASEHOLD_FAULTS_DEBUG") != "" {
		r.t.Logf("timeline:\n%s", timelineText(evs))
	}
	for _, v := range rep.Violations {
		r.t.Errorf("violation: %v", v)
	}
	r.judgeLatency(rep)
	if len(rep.Violations) > 0 {
		r.t.Logf("candidate logs:\n%s", r.c.logs())
	}
	total, client := 0, 0
	for _, n := range r.ran {
		total += n
	}
	for _, k := range faultKinds {
		client += r.ran[k.name]
	}
	// Client faults aimed at the leader change it more often than not; a
	// store fault need not (a leader whose session survives it keeps
	// leading, as it should).
	if len(rep.Leaderships) == 0 || len(rep.Leaderships) <= client/2 ||
		rep.Writes[history.GuardFence].Accepted == 0 || rep.Writes[history.GuardStore].Accepted == 0 {
		r.t.Errorf("the run shows too little activity to judge: %d leaderships over %d client faults (%d in all), writes %+v",
			len(rep.Leaderships), client, total, rep.Writes)
	}
	r.pol.mu.Lock()
	pol := policyOutcome{counts: maps.Clone(r.pol.counts), yields: maps.Clone(r.pol.yields), lat: maps.Clone(r.pol.lat)}
	r.pol.mu.Unlock()
	r.t.Logf("%s: policy events %v; handovers the candidates made, by cause: %v", name, pol.counts, pol.yields)
	o := outcome{backend: name, kinds: kinds, ttl: r.b.ttl, cfg: cfg, ran: r.ran, report: rep, took: time.Since(r.start), pol: pol,
		timeline: newTimeline(name, r.b.ttl, len(kinds), evs, rep, r.c.born)}
	late := 0
	for _, v := range rep.Violations {
		if v.Check == history.CheckLate {
			late++
		}
	}
	r.t.Logf("%s: %d fault cycles in %v, %d violations (%d writes after a successor began: check e), %d leaderships, writes %+v",
		name, total, o.took.Round(time.Second), len(rep.Violations), late, len(rep.Leaderships), rep.Writes)
	results.Lock()
	results.byBackend = append(results.byBackend, o)
	results.Unlock()
}

// lowPercent is latency-low's added latency, in percent of
// lease.Options.LatencyBound. The bound is on a renewal's whole round
// trip, and the store's own time is part of it: on a 3-node cluster on a
// loaded 2-core machine, raft's commit and fsync take up to a few hundred
// milliseconds. A 200-cycle etcd soak at 80 % lost its leader in 1 of 23
// latency-low cycles, 3 s into the latency; 70 % leaves 222 ms at TTL 2 s.
const lowPercent = 70

// judgeLatency fails the run if a leader lost its leadership under a
// latency below the bound (latency-low) while the latency lasted, and logs
// the losses per latency cycle of both kinds, and those after the heal.
func (r *run) judgeLatency(rep history.Report) {
	lost, cycles := map[string]int{}, map[string]int{}
	for _, f := range rep.Faults {
		if !strings.HasPrefix(f.Fault, "latency-") {
			continue
		}
		cycles[f.Fault]++
		if f.Stop >= 0 {
			lost[f.Fault]++
			switch {
			case f.Fault != "latency-low":
			case f.Stop < r.b.ttl*3/2 && r.pol.yielded(f.Target, f.At, f.At.Add(f.Stop+2*time.Second)):
				// A preemption the cycle's settle did not wait out.
				r.t.Logf("latency-low: %s handed over %v after the latency began (a preemption)", f.Target, f.Stop)
			case f.Stop < r.b.ttl*3/2:
				r.t.Errorf("latency-low: %s lost its leadership %v after a latency of %d%% of the bound %v began",
					f.Target, f.Stop, lowPercent, r.bound())
			default:
				// Two soaks saw one each, 14 and 49 ms after the heal
				// (hold: 1.5×TTL); cause not found. Logged, not failed.
				r.t.Logf("latency-low: %s lost its leadership %v after the latency began, after its heal at %v",
					f.Target, f.Stop, r.b.ttl*3/2)
			}
		}
	}
	for _, k := range []string{"latency-low", "latency-high"} {
		if cycles[k] > 0 {
			r.t.Logf("%s: leader lost in %d of %d cycles (bound %v)", k, lost[k], cycles[k], r.bound())
		}
	}
}

// stopping collects, per fault kind, the durations of one FaultStat field.
func stopping(rep history.Report, field func(history.FaultStat) time.Duration) map[string][]time.Duration {
	m := map[string][]time.Duration{}
	for _, f := range rep.Faults {
		if d := field(f); d >= 0 {
			m[f.Fault] = append(m[f.Fault], d)
		}
	}
	for _, ds := range m {
		slices.Sort(ds)
	}
	return m
}

// timelineText renders the history without its writes, in seconds from its
// first event, for debugging (LEASEHOLD_FAULTS_DEBUG=1).
func timelineText(evs []history.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Kind != history.Write {
			fmt.Fprintf(&b, "%8.3fs %-7s %-4s token=%d %s\n", e.At.Sub(evs[0].At).Seconds(), e.Kind, e.Candidate, e.Token, e.Fault)
		}
	}
	return b.String()
}
