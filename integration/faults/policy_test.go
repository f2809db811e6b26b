package faults

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/leasehold/leasehold/integration/history"
	"github.com/leasehold/leasehold/lease"
)

// The election policies in the schedule (issue 13, docs/policies.md).
// The candidates have mixed priorities, most with lease.Options.Preempt,
// all with FollowRoster (so that they honour requests), and a cycle may
// add one policy event to its fault:
//
//   - handover: the leader hands over (Leadership.HandOver, on SIGUSR1)
//     to a named live candidate or, every other time, to the next in line;
//   - request: an elector outside the election calls
//     LeaseElector.RequestHandover, with a bounded context, naming a
//     candidate or, every other time, none;
//   - priority-join: the lowest-priority follower leaves and a candidate
//     of a priority above every other joins, with Preempt: a leader with
//     Preempt hands over to it after its stability window.
//
// A policy event runs either after the fault healed, the store's own
// recovery allowance passed (awaitCalm) and the leader is settled
// ("after": no fault active, its liveness bound is failed), or
// while the fault is active ("during": a handover or request TTL/2 into
// the fault, a priority-join right before it; the fault's own bounds
// apply and the policy's outcome is logged, not failed). Latency-low's
// are always after: its leader must not lose its leadership while the
// latency lasts. The history checker is the same: a handover must
// produce no violation. An "after" event is in the history as a Fault
// and its Heal, so check (d) applies to it, and the report measures it.

// policy is a candidate's election policy.
type policy struct {
	priority int
	preempt  bool
}

// args are the candidate's flags for p.
func (p policy) args() []string {
	return []string{"-priority", strconv.Itoa(p.priority), fmt.Sprintf("-preempt=%t", p.preempt)}
}

// defaultPolicy is candidate cN's policy: priorities 1, 2, 0, 1, 2, ...;
// Preempt for all but every fourth.
// LEASEHOLD_FAULTS_POLICIES=off: all equal, none with Preempt, as before
// issue 13.
func defaultPolicy(n int) policy {
	if os.Getenv("LEASEHOLD_FAULTS_POLICIES") == "off" {
		return policy{}
	}
	return policy{priority: n % 3, preempt: n%4 != 0}
}

// policyKinds are the policy events, in report order.
var policyKinds = []string{"handover", "request", "priority-join"}

// soak reports whether this is a soak (LEASEHOLD_SOAK_CYCLES or
// LEASEHOLD_FAULTS_MIXED set), not the default run of CI.
func soak() bool {
	return os.Getenv("LEASEHOLD_SOAK_CYCLES") != "" || os.Getenv("LEASEHOLD_FAULTS_MIXED") != ""
}

// policyEvent returns the policy event of cycle i, if any, and whether it
// runs during the fault f. LEASEHOLD_FAULTS_POLICIES=off turns them off;
// a soak adds one to every cycle; the default run (CI) one of each to the
// first cycles of its etcd and ZooKeeper client-side runs, and none on
// Consul, whose 10-s TTL makes each cost seconds (the soak covers it).
// The kinds rotate so that each meets every fault kind, after and during.
func (r *run) policyEvent(i int, f fault, nkinds int) (kind string, during bool) {
	if os.Getenv("LEASEHOLD_FAULTS_POLICIES") == "off" {
		return "", false
	}
	if !soak() && (r.store != nil || i >= len(policyKinds) || r.b.name == "consul") {
		return "", false
	}
	kind = policyKinds[(i+i/nkinds)%len(policyKinds)]
	return kind, i%2 == 1 && f.name != "latency-low"
}

// policyRun is one run's policy machinery: the control endpoint the
// candidates report to, the outside requester, and the counts.
type policyRun struct {
	url     string              // the control endpoint
	req     *lease.LeaseElector // the outside elector of requests
	results chan string         // "id seq outcome" of each HandOver
	seq     int

	mu     sync.Mutex
	counts map[string]int             // "kind/outcome"
	yields map[string]int             // handovers the candidates made, by cause
	yieldT []yieldAt                  // when each was reported
	lostT  []yieldAt                  // when each term a deadline, session or key ended was reported
	news   chan struct{}              // closed, and replaced, when one is
	lat    map[string][]time.Duration // per kind, from the event to the new leader acting
	misses []string                   // policy events that went otherwise, no fault active
}

type yieldAt struct {
	id string
	at history.Time
}

// newPolicyRun serves the control endpoint for the run's candidates.
func newPolicyRun(r *run, req *lease.LeaseElector) *policyRun {
	p := &policyRun{req: req, results: make(chan string, 64), counts: map[string]int{}, yields: map[string]int{},
		lat: map[string][]time.Duration{}, news: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if err := req.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id, kind, detail := req.Form.Get("id"), req.Form.Get("kind"), req.Form.Get("detail")
		switch kind {
		case "yield":
			p.mu.Lock()
			p.yields[detail]++
			p.yieldT = append(p.yieldT, yieldAt{id, history.Now()})
			p.mu.Unlock()
		case "lost":
			p.noteLost(id, detail)
		case "handover-result":
			select {
			case p.results <- id + " " + detail:
			default:
			}
		}
	}))
	r.t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// count adds one to key.
func (p *policyRun) count(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[key]++
}

// took records the time from a policy event to its new leader.
func (p *policyRun) took(kind string, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lat[kind] = append(p.lat[kind], d)
}

// yielded reports whether candidate id reported a handover within
// [from, to].
func (p *policyRun) yielded(id string, from, to history.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.ContainsFunc(p.yieldT, func(y yieldAt) bool { return y.id == id && y.at >= from && y.at <= to })
}

// noteLost records that candidate id's leadership ended for reason (a
// lease.Reason* constant), if it lost it: its renewal deadline passed, or
// its session or key went. A resign, a handover or a close is no loss.
func (p *policyRun) noteLost(id, reason string) {
	switch reason {
	case lease.ReasonRenewDeadline, lease.ReasonSessionExpired, lease.ReasonKeyLost:
	default:
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lostT = append(p.lostT, yieldAt{id, history.Now()})
	close(p.news)
	p.news = make(chan struct{})
}

// awaitLost reports whether candidate id reported a lost term at or after
// from, waiting for the report until deadline: a candidate reports over
// HTTP, so its report may come after the suite saw the next leader.
func (p *policyRun) awaitLost(id string, from history.Time, deadline time.Time) bool {
	tm := time.NewTimer(time.Until(deadline))
	defer tm.Stop()
	for {
		p.mu.Lock()
		found := slices.ContainsFunc(p.lostT, func(y yieldAt) bool { return y.id == id && y.at >= from })
		news := p.news
		p.mu.Unlock()
		if found {
			return true
		}
		select {
		case <-news:
		case <-tm.C:
			return false
		}
	}
}

// awaitResult returns the outcome of HandOver number seq, or "no-answer"
// after d.
func (p *policyRun) awaitResult(seq int, d time.Duration) string {
	tm := time.NewTimer(d)
	defer tm.Stop()
	for {
		select {
		case s := <-p.results:
			f := strings.Fields(s)
			if len(f) == 3 && f[1] == strconv.Itoa(seq) {
				return f[2]
			}
		case <-tm.C:
			return "no-answer"
		}
	}
}

// preemptAfter is the candidates' stability window of preemption.
func (r *run) preemptAfter() time.Duration {
	if r.b.preemptAfter > 0 {
		return r.b.preemptAfter
	}
	return r.b.ttl
}

// runPolicy runs the policy event kind aimed at the leader cd (of token
// tok). During a fault, a handover or request runs TTL/2 into it, on a
// goroutine of its own that touches no cluster state; the returned
// function waits for it.
func (r *run) runPolicy(kind string, during bool, cd *candidate, tok uint64) (wait func()) {
	mode := "after"
	if during {
		mode = "during"
	}
	r.pol.count(kind + "/" + mode)
	if kind == "priority-join" {
		r.priorityJoin(cd, tok, during)
		return func() {}
	}
	do := r.handover
	if kind == "request" {
		do = r.request
	}
	if !during {
		do(cd, tok, false)
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-time.After(r.b.ttl / 2)
		do(cd, tok, true)
	}()
	return func() { <-done }
}

// target picks the candidate a handover or request names: every other
// time none (the next in line), else a live candidate other than the
// leader, in rotation. ok is false if no such candidate is listed.
func (r *run) target(kind string, leader string) (to string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), r.b.ttl)
	defer cancel()
	cs, err := r.obs.Candidates(ctx, election)
	if err != nil {
		return "", false
	}
	var ids []string
	for _, c := range cs {
		if !c.Leader && c.MayLead && !c.Damped && !c.Requester && c.Identity != leader {
			ids = append(ids, c.Identity)
		}
	}
	if len(ids) == 0 {
		return "", false
	}
	r.pol.mu.Lock()
	n := r.pol.counts[kind+"/after"] + r.pol.counts[kind+"/during"]
	r.pol.mu.Unlock()
	if n%2 == 0 {
		return "", true
	}
	return ids[(n/2)%len(ids)], true
}

// handover makes the leader cd hand over (SIGUSR1) to a target, and,
// after a fault, requires the new leader within TTL.
func (r *run) handover(cd *candidate, tok uint64, during bool) {
	to, ok := r.target("handover", cd.id)
	if !ok {
		r.pol.count("handover/no-target")
		return
	}
	r.pol.mu.Lock()
	r.pol.seq++
	seq := r.pol.seq
	r.pol.mu.Unlock()
	if err := os.WriteFile(cd.hist+".to", fmt.Appendf(nil, "%d %s", seq, to), 0o644); err != nil {
		r.t.Errorf("handover target file: %v", err)
		return
	}
	if !during {
		r.drv.add(history.Event{Kind: history.Fault, Fault: "handover", Candidate: cd.id})
	}
	begin := time.Now()
	if err := cd.signal(syscall.SIGUSR1); err != nil {
		r.pol.count("handover/not-sent")
		return
	}
	if !during {
		r.drv.add(history.Event{Kind: history.Heal, Fault: "handover", Candidate: cd.id})
	}
	res := r.pol.awaitResult(seq, 3*r.b.ttl+5*time.Second)
	r.pol.count("handover/" + res)
	if res != "ok" {
		r.t.Logf("handover by %s to %q: %s (during a fault: %v)", cd.id, to, res, during)
		return
	}
	r.newLeader("handover", cd, tok, to, begin, r.b.ttl, during)
}

// request asks the leader cd, from outside, to hand over
// (RequestHandover, bounded), and, after a fault, requires the new leader
// within 2×TTL: one TTL more than a handover's, for the
// requester's session and the round trips of its request record.
func (r *run) request(cd *candidate, tok uint64, during bool) {
	to, ok := r.target("request", cd.id)
	if !ok {
		r.pol.count("request/no-target")
		return
	}
	bound := 2 * r.b.ttl
	if during {
		bound += r.b.ttl * 3 / 2 // the fault's hold
	}
	if !during {
		r.drv.add(history.Event{Kind: history.Fault, Fault: "request", Candidate: cd.id})
		r.drv.add(history.Event{Kind: history.Heal, Fault: "request", Candidate: cd.id})
	}
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	info, err := r.pol.req.RequestHandover(ctx, election, to)
	cancel()
	switch {
	case err == nil:
		r.pol.count("request/honoured")
	case errors.Is(err, lease.ErrNoCandidate):
		r.pol.count("request/no-candidate")
	case errors.Is(err, lease.ErrNoLeader):
		r.pol.count("request/no-leader")
	case errors.Is(err, lease.ErrOvertaken):
		r.pol.count("request/overtaken")
	case errors.Is(err, context.DeadlineExceeded):
		r.pol.count("request/timeout")
	default:
		r.pol.count("request/error")
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			r.miss(during, "request to %s (token %d) to hand over to %q: %v", cd.id, tok, to, err)
		} else {
			r.t.Logf("request to %s to hand over to %q (during a fault: %v): %v", cd.id, to, during, err)
		}
		return
	}
	if !during {
		r.pol.took("request", time.Since(begin))
	}
	switch {
	case to == "" && info.Identity == cd.id:
		// A leader that lost its term before it passed the key and won
		// it again overtakes the request (ErrOvertaken): a success names
		// another candidate.
		r.pol.count("request/taken-back")
		r.miss(during, "request to %s (token %d) to hand over to the next in line: %s took the key back (token %d)",
			cd.id, tok, cd.id, info.Token)
	case to == "":
		r.pol.count("request/next-in-line")
	default:
		r.pol.count("request/to-named") // RequestHandover waits for the named one
	}
}

// priorityJoin replaces the lowest-priority follower by a candidate of a
// priority above all, with Preempt. After a fault, a leader with Preempt
// must hand over to it within its stability window + TTL
// + 5 s (the new process's start and its first round trips).
func (r *run) priorityJoin(cd *candidate, tok uint64, during bool) {
	var f *candidate
	top := cd.pol.priority
	for _, c := range r.c.cands {
		top = max(top, c.pol.priority)
		if c != cd && (f == nil || c.pol.priority < f.pol.priority) {
			f = c
		}
	}
	if f == nil {
		r.pol.count("priority-join/no-follower")
		return
	}
	if !during {
		r.drv.add(history.Event{Kind: history.Fault, Fault: "priority-join", Candidate: cd.id})
	}
	r.c.stop(f)
	begin := time.Now()
	j := r.c.startWith(policy{priority: top + 1, preempt: true})
	if !during {
		r.drv.add(history.Event{Kind: history.Heal, Fault: "priority-join", Candidate: cd.id})
	}
	if during {
		return // the preemption, if any, shows in the yields
	}
	if !cd.pol.preempt {
		r.pol.count("priority-join/leader-without-preempt")
		return
	}
	r.newLeader("priority-join", cd, tok, j.id, begin, r.preemptAfter()+r.b.ttl+5*time.Second, false)
}

// newLeader waits, up to bound from begin, for a leader other than cd's
// term tok to act, and counts whether it is want (if set; else anyone but
// cd). With no fault active, no new leader, or another than want (cd
// itself taking the key back, for an unnamed one), is a policy miss; during
// a fault it is logged.
func (r *run) newLeader(kind string, cd *candidate, tok uint64, want string, begin time.Time, bound time.Duration, during bool) {
	ctx, cancel := context.WithDeadline(context.Background(), begin.Add(bound))
	defer cancel()
	if during {
		// The fault's own bounds apply; wait out its hold too.
		ctx, cancel = context.WithDeadline(context.Background(), begin.Add(bound+r.b.ttl*3/2+r.b.storeRecovery))
		defer cancel()
	}
	info, err := r.nextLeader(ctx, tok)
	if err != nil {
		r.pol.count(kind + "/no-new-leader")
		r.miss(during, "%s from %s (token %d) to %q: no new leader within %v", kind, cd.id, tok, want, bound)
		return
	}
	r.pol.count(kind + "/new-leader")
	if !during {
		r.pol.took(kind, time.Since(begin))
	}
	switch {
	case want == "" && info.Identity != cd.id:
		r.pol.count(kind + "/next-in-line")
	case want == "":
		r.pol.count(kind + "/taken-back")
		r.miss(during, "%s from %s (token %d) to the next in line: %s took the key back (token %d) after %v",
			kind, cd.id, tok, cd.id, info.Token, time.Since(begin).Round(time.Millisecond))
	case info.Identity == want:
		r.pol.count(kind + "/to-named")
	case kind == "priority-join" && r.lostSince(cd, begin):
		r.afterLoss(kind, cd, info, want, begin)
	default:
		r.pol.count(kind + "/not-to-named")
		r.miss(during, "%s from %s (token %d) to %s: %s leads (token %d) after %v", kind, cd.id, tok, want,
			info.Identity, info.Token, time.Since(begin).Round(time.Millisecond))
	}
}

// lostSince reports whether the leader cd lost a term since begin: its
// renewal deadline passed, or its session or key went (not a resign,
// handover or close). It waits up to a TTL for cd's report, which comes
// over HTTP.
func (r *run) lostSince(cd *candidate, begin time.Time) bool {
	return r.pol.awaitLost(cd.id, history.Now().Add(-time.Since(begin)), time.Now().Add(r.b.ttl))
}

// afterLoss judges a priority-join whose leader cd lost its term (its
// renewal deadline passed, or its session or key went) before it handed
// over, so that the key went to the head of the line, info, whatever its
// priority (docs/policies.md, Priority and preemption). That leader, if
// it has Preempt, must hand over to want within its stability window +
// TTL + 5 s, or it is a policy miss; one without Preempt keeps the key,
// as the leader decides. If that leader lost its term too, the same goes
// for the one after it, up to maxLostLeaders leaders in all.
func (r *run) afterLoss(kind string, cd *candidate, info lease.LeaderInfo, want string, begin time.Time) {
	r.pol.count(kind + "/leader-lost-first")
	for n := 1; ; n++ {
		if x := r.c.cands[info.Identity]; x == nil || !x.pol.preempt {
			r.pol.count(kind + "/then-leader-without-preempt")
			return
		}
		bound := r.preemptAfter() + r.b.ttl + 5*time.Second
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		next, err := r.nextLeader(ctx, uint64(info.Token))
		cancel()
		switch {
		case err != nil:
			r.miss(false, "%s: %s lost its term, %s took the key (token %d) and handed it to no one within %v",
				kind, cd.id, info.Identity, info.Token, bound)
		case next.Identity == want:
			r.pol.count(kind + "/then-to-named")
		case n < maxLostLeaders && r.pol.awaitLost(info.Identity, history.Now().Add(-time.Since(begin)), time.Now().Add(r.b.ttl)):
			info = next // info lost its term too: the key went to the head of the line again
			continue
		default:
			r.miss(false, "%s: %s lost its term, %s took the key (token %d) and %s leads (token %d), not %s",
				kind, cd.id, info.Identity, info.Token, next.Identity, next.Token, want)
		}
		return
	}
}

// maxLostLeaders bounds how many leaders in a row afterLoss lets lose
// their term before the joiner leads: a loaded machine can make two.
const maxLostLeaders = 3

// miss records a policy event that did not go as the policy says: with no
// fault active it fails a soak when the run ends (the soak goes on: its
// safety checks matter more), unless LEASEHOLD_FAULTS_POLICY_MISS=log, and
// is logged in the default run unless LEASEHOLD_FAULTS_POLICY_MISS=fail;
// during a fault it is logged.
func (r *run) miss(during bool, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if during {
		r.t.Logf("policy, during a fault (logged): %s", msg)
		return
	}
	r.t.Logf("POLICY MISS (no fault active): %s", msg)
	r.pol.mu.Lock()
	r.pol.misses = append(r.pol.misses, msg)
	r.pol.mu.Unlock()
}

// judgeMisses fails the run for the policy misses, or logs them (see
// miss).
func (r *run) judgeMisses(name string) {
	r.pol.mu.Lock()
	defer r.pol.mu.Unlock()
	if len(r.pol.misses) == 0 {
		return
	}
	report := r.t.Logf
	switch v := os.Getenv("LEASEHOLD_FAULTS_POLICY_MISS"); {
	case v == "fail", v == "" && soak():
		report = r.t.Errorf
	}
	report("%s: %d policy misses with no fault active (liveness of the policies, not safety):\n  %s",
		name, len(r.pol.misses), strings.Join(r.pol.misses, "\n  "))
}

// nextLeader waits for a leader with a token above tok that acts (the
// fenced resource admits a write with its token) and returns it. It
// touches no cluster state.
func (r *run) nextLeader(ctx context.Context, tok uint64) (lease.LeaderInfo, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := r.obs.Observe(ctx, election)
	if err != nil {
		return lease.LeaderInfo{}, err
	}
	var cur lease.LeaderInfo
	var acting <-chan struct{}
	for {
		select {
		case info, ok := <-ch:
			if !ok {
				return lease.LeaderInfo{}, context.Cause(ctx)
			}
			cur, acting = info, nil
			if info.HasLeader() && uint64(info.Token) > tok {
				acting = r.fenced.wait(info.Token)
			}
		case <-acting:
			return cur, nil
		}
	}
}

// settle waits until no preemption is due: the leader lacks Preempt, or
// no running candidate has a higher priority. It counts and logs a
// preemption that does not come within its bound, and goes on. The
// default run (CI) settles only before a policy event: a preemption in a
// fault cycle there changes no check (latency-low's allows for it).
func (r *run) settle(policyEvent bool) {
	if r.pol == nil || (!soak() && !policyEvent) {
		return
	}
	bound := r.preemptAfter() + r.b.ttl + r.b.recovery + 5*time.Second
	deadline := time.Now().Add(bound)
	for {
		cd, tok := r.leaderToken()
		due := false
		for _, c := range r.c.cands {
			due = due || (cd.pol.preempt && c.pol.priority > cd.pol.priority)
		}
		if !due {
			return
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		_, err := r.nextLeader(ctx, tok)
		cancel()
		if err != nil {
			r.pol.count("settle/preemption-overdue")
			r.t.Logf("settle: %s (priority %d, Preempt) still leads %v after the cycle, with a higher priority running",
				cd.id, cd.pol.priority, bound)
			return
		}
		r.pol.count("settle/preempted")
	}
}
