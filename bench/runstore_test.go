package bench

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/report"
	"github.com/leasehold/leasehold/bench/internal/scenario"
	"github.com/leasehold/leasehold/bench/internal/stat"
	"github.com/leasehold/leasehold/lease"
)

// ttls are the shortest session TTLs each store allows (ZooKeeper: its
// tickTime is 200 ms) and the longer ones the herd uses for its
// thousand sessions.
var ttls = map[env.Kind]time.Duration{env.Etcd: 2 * time.Second, env.ZooKeeper: 2 * time.Second, env.Consul: 10 * time.Second}
var herdTTLs = map[env.Kind]time.Duration{env.Etcd: 10 * time.Second, env.ZooKeeper: 4 * time.Second, env.Consul: 10 * time.Second}

func latency(d []time.Duration) report.Latency {
	return report.Latency{Summary: stat.Summarize(d), Samples: stat.Millis(d)}
}

// step is one scenario of runTurns or runAlone: its BENCH_SCENARIOS name
// and its run on a store.
type step struct {
	name string
	run  func(config, *env.Store, *report.Store, func(string, error), func(string, ...any))
}

// runTurns runs the scenarios whose figures are latencies or request
// counts of hand-offs on st (physical, handoff, herd, policies), one after
// another. TestBench runs them on the three stores at once, the stores
// taking turns (st.Turn, see turn.Lock): one store measures at a time,
// and only their pauses overlap.
func runTurns(t *testing.T, cfg config, st *env.Store) *report.Store {
	r := &report.Store{Name: string(st.Kind), TTL: ttls[st.Kind].String(), Seconds: map[string]float64{}}
	runSteps(t, cfg, st, r, []step{{"physical", runPhysical}, {"handoff", runHandoff}, {"herd", runHerd}, {"policies", runPolicies}})
	return r
}

// runAlone runs the scenarios that load the machine for their whole run
// and read the process's own heap, goroutines and connections (sharded,
// shards) on st, one after another; TestBench runs them one store after
// another, after every runTurns, with nothing else running.
func runAlone(t *testing.T, cfg config, st *env.Store, r *report.Store) {
	runSteps(t, cfg, st, r, []step{{"sharded", runSharded}, {"shards", runShards}})
}

// runSteps runs the steps of the run (cfg.runs) on st, one after another,
// each timed into r.
func runSteps(t *testing.T, cfg config, st *env.Store, r *report.Store, steps []step) {
	fail, logf := failLog(t, st, r)
	for _, s := range steps {
		if cfg.runs(s.name) {
			timed(r, s.name, logf, func() { s.run(cfg, st, r, fail, logf) })
		}
	}
}

func runPhysical(cfg config, st *env.Store, r *report.Store, fail func(string, error), logf func(string, ...any)) {
	d, err := scenario.Physical(st, cfg.physN)
	if err != nil {
		fail("physical", err)
	}
	r.Physical = latency(d)
	logf("physical %+v", r.Physical.Summary)
}

// runWaits runs the scenarios that mostly wait for a TTL on st (crash,
// slow link, idle), one after another; TestBench runs them on the three
// stores at once, after every runAlone: their figures are seconds, counts
// of losses and the store's own request counts, none of them moved by
// another store's run.
func runWaits(t *testing.T, cfg config, st *env.Store, bin string, r *report.Store) {
	fail, logf := failLog(t, st, r)
	if cfg.runs("crash") {
		timed(r, "crash", logf, func() { runCrash(cfg, st, bin, r, fail, logf) })
	}
	if cfg.runs("slowlink") {
		timed(r, "slowlink", logf, func() { runSlowLink(cfg, st, r, fail, logf) })
	}
	if cfg.runs("idle") {
		timed(r, "idle", logf, func() { runIdle(t, cfg, st, r) })
	}
}

// failLog returns the functions a scenario reports through on st: fail
// records an error in r, logf logs a line naming the store.
func failLog(t *testing.T, st *env.Store, r *report.Store) (func(string, error), func(string, ...any)) {
	fail := func(what string, err error) { r.Errors = append(r.Errors, fmt.Sprintf("%s: %v", what, err)) }
	logf := func(f string, a ...any) { t.Logf("%s: "+f, append([]any{st.Kind}, a...)...) }
	return fail, logf
}

// timed runs f, records its wall time in r.Seconds under name and logs it.
func timed(r *report.Store, name string, logf func(string, ...any), f func()) {
	t0 := time.Now()
	f()
	s := time.Since(t0).Seconds()
	r.Seconds[name] = s
	logf("scenario %s took %.1f s", name, s)
}

// runHandoff measures the graceful hand-off between two candidates of each
// library, settled and fresh, the libraries' hand-offs interleaved (see
// scenario.Handoffs); valkeyrie takes part in the first valkN rounds.
func runHandoff(cfg config, st *env.Store, r *report.Store, fail func(string, error), logf func(string, ...any)) {
	o := cand.Opts{TTL: ttls[st.Kind], Process: cfg.procs}
	series := []scenario.Series{{Lib: cand.Leasehold, N: cfg.handN}, {Lib: cand.Native, N: cfg.handN}, {Lib: cand.Valkeyrie, N: cfg.valkN}}
	for _, v := range []scenario.Variant{scenario.Settled, scenario.Fresh} {
		ds, errs := scenario.Handoffs(st, v, series, o)
		for i, s := range series {
			if errs[i] != nil {
				fail(fmt.Sprintf("handoff %s %s", s.Lib, v), errs[i])
			}
			h := report.Handoff{Lib: string(s.Lib), Peer: cand.PeerName(s.Lib, st.Kind), Variant: string(v), Latency: latency(ds[i])}
			r.Handoff = append(r.Handoff, h)
			logf("handoff %s %s %+v", s.Lib, v, h.Summary)
		}
	}
}

// runPolicies measures issue 13's planned handover and graceful hand-off
// with each number of waiters, next to the native peer's (see
// scenario.Policies).
func runPolicies(cfg config, st *env.Store, r *report.Store, fail func(string, error), logf func(string, ...any)) {
	for _, n := range cfg.policyNs {
		p, err := scenario.Policies(st, n, cfg.policyK, cand.Opts{TTL: ttls[st.Kind]})
		if err != nil {
			fail(fmt.Sprintf("policies %d", n), err)
		}
		rp := report.Policy{N: n, Peer: cand.PeerName(cand.Native, st.Kind), Planned: latency(p.Planned), Graceful: latency(p.Graceful),
			Native: latency(p.Native), RoundTrip: latency(p.RoundTrip), Misses: p.Misses,
			PlannedReq: p.PlannedReq, GracefulReq: p.GracefulReq, NativeReq: p.NativeReq}
		r.Policies = append(r.Policies, rp)
		logf("policies %d: planned %+v graceful %+v native %+v rtt %+v misses %d req %.1f/%.1f/%.1f", n, rp.Planned.Summary,
			rp.Graceful.Summary, rp.Native.Summary, rp.RoundTrip.Summary, p.Misses, p.PlannedReq, p.GracefulReq, p.NativeReq)
	}
}

// crashCase is one crash-failover series.
type crashCase struct {
	lib   cand.Lib
	delay time.Duration
	n     int
}

// runCrash measures crash failovers on st, every series at once (see
// scenario.Crash): one wait for the TTL, not one per sample.
func runCrash(cfg config, st *env.Store, bin string, r *report.Store, fail func(string, error), logf func(string, ...any)) {
	ttl := ttls[st.Kind]
	cases := []crashCase{{cand.Leasehold, 0, cfg.crashN}, {cand.Native, 0, cfg.crashN}}
	if st.Kind == env.Consul {
		if !cfg.consulCrash {
			return
		}
		n := cfg.consulCrashN
		cases = []crashCase{{cand.Leasehold, time.Millisecond, n}, {cand.Native, time.Millisecond, n}, {cand.Native, 0, n}}
	}
	ds, errs := make([][]time.Duration, len(cases)), make([]error, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Go(func() { ds[i], errs[i] = scenario.Crash(st, c.lib, bin, c.n, cand.Opts{TTL: ttl, LockDelay: c.delay}) })
	}
	wg.Wait()
	for i, c := range cases {
		if errs[i] != nil {
			fail(fmt.Sprintf("crash %s", c.lib), errs[i])
		}
		cr := report.Crash{Lib: string(c.lib), Peer: cand.PeerName(c.lib, st.Kind), TTLSeconds: ttl.Seconds(), Latency: latency(ds[i])}
		if st.Kind == env.Consul {
			cr.LockDelay = "1ms"
			if c.delay == 0 {
				cr.LockDelay = "default (15s)"
			}
		}
		cr.WorstOverTTL = stat.Ratio(cr.Max/1000, ttl.Seconds())
		r.Crash = append(r.Crash, cr)
		logf("crash %s %s %+v", c.lib, cr.LockDelay, cr.Summary)
	}
}

// herdModes are the herd's wait modes, by their names in the results:
// the default configuration (lease.Options.Wait zero: the ordered queue on
// all three stores) and key mode, for comparison.
var herdModes = []struct {
	name string
	wait lease.WaitMode
}{{report.HerdDefault, lease.WaitAuto}, {report.HerdKey, lease.WaitKey}}

func runHerd(cfg config, st *env.Store, r *report.Store, fail func(string, error), logf func(string, ...any)) {
	for _, m := range herdModes {
		for _, n := range cfg.herdNs {
			if st.Kind == env.Consul && n > consulHerdMax {
				logf("herd %s %d skipped: above Consul's %d (see consulHerdMax)", m.name, n, consulHerdMax)
				continue
			}
			t0 := time.Now()
			h, err := scenario.Herd(st, n, 10, cfg.herdK, cand.Opts{TTL: herdTTLs[st.Kind], Wait: m.wait})
			if err != nil {
				fail(fmt.Sprintf("herd %s %d", m.name, n), err)
			}
			addHerd(st, r, n, m.name, h, logf)
			logf("herd %s %d took %.1f s (the turn's wait included)", m.name, n, time.Since(t0).Seconds())
		}
	}
	runHerd2(cfg, st, r, fail, logf)
}

// consulHerdMax is Consul's largest herd: each elector's watch set holds
// a blocking query, so 1,000 electors in one process ask an agent for
// more than the 200 connections it serves a client address, and their
// sessions were not made within 90 s (2026-11-30; on separate hosts each
// would have its own).
const consulHerdMax = 100

// runHerd2 measures the hand-off at N = 2 in the default mode and in key
// mode, side by side, the two herds handing over in turn, so that a change
// of the machine's speed during the run weighs on both modes alike.
func runHerd2(cfg config, st *env.Store, r *report.Store, fail func(string, error), logf func(string, ...any)) {
	def, key := herdModes[0], herdModes[1]
	ttl := herdTTLs[st.Kind]
	hd, hk, err := scenario.HerdPair(st, 2, 10, cfg.herd2K, cand.Opts{TTL: ttl, Wait: def.wait}, cand.Opts{TTL: ttl, Wait: key.wait})
	if err != nil {
		fail("herd default and key 2", err)
	}
	addHerd(st, r, 2, def.name, hd, logf)
	addHerd(st, r, 2, key.name, hk, logf)
}

func addHerd(st *env.Store, r *report.Store, n int, mode string, h scenario.HerdResult, logf func(string, ...any)) {
	conns := "10 shared clients, one session per elector"
	if st.Kind == env.ZooKeeper {
		conns = "one connection (= session) per elector"
	}
	r.Herd = append(r.Herd, report.Herd{N: n, Mode: mode, Connections: conns, TTL: herdTTLs[st.Kind].String(), Latency: latency(h.Latencies),
		RequestsPerFailover: h.RequestsPerFailover, NotificationsPerFailover: h.NotificationsPerFailover,
		BackgroundRequestsPerSec: h.BackgroundRequestsPerSec, SetupSeconds: h.Setup.Seconds()})
	logf("herd %s %d %+v req/failover %.1f notif %.1f background %.0f/s setup %.1f s quiet after %.1f s", mode, n, stat.Summarize(h.Latencies),
		h.RequestsPerFailover, h.NotificationsPerFailover, h.BackgroundRequestsPerSec, h.Setup.Seconds(), h.Quiet.Seconds())
}

func runSharded(cfg config, st *env.Store, r *report.Store, fail func(string, error), logf func(string, ...any)) {
	scenario.HeapProfileDir = os.Getenv("BENCH_HEAPPROFILE") // a directory; see scenario.HeapProfileDir
	for _, m := range cfg.shardMs {
		s, err := scenario.Sharded(st, m, cfg.shardWindow, cand.Opts{TTL: ttls[st.Kind], LockDelay: time.Millisecond})
		if err != nil {
			fail(fmt.Sprintf("sharded %d", m), err)
		}
		r.Sharded = append(r.Sharded, report.Sharded{M: m, AcquireSeconds: s.Acquire.Seconds(), RequestsPerSec: s.RequestsPerSec,
			NotificationsPerSec: s.NotificationsPerSec, HeapBytesPerElect: s.HeapPerElection,
			Goroutines: s.Goroutines, GoroutinesBefore: s.GoroutinesBefore, Conns: s.Conns, ConnsBefore: s.ConnsBefore})
		logf("sharded %d %+v", m, s)
	}
}

// runIdle measures the idle cost of leasehold and the native peer on st.
func runIdle(t *testing.T, cfg config, st *env.Store, r *report.Store) {
	for _, lib := range []cand.Lib{cand.Leasehold, cand.Native} {
		o := cand.Opts{TTL: ttls[st.Kind], LockDelay: time.Millisecond}
		i, err := scenario.Idle(st, lib, cfg.idleWindow, o)
		if err != nil {
			r.Errors = append(r.Errors, fmt.Sprintf("idle %s: %v", lib, err))
		}
		r.Idle = append(r.Idle, report.Idle{Lib: string(lib), Peer: cand.PeerName(lib, st.Kind),
			LeaderPerMin: i.LeaderPerMin, CandidatePerMin: i.CandidatePerMin})
		t.Logf("%s: idle %s %+v", st.Kind, lib, i)
	}
}

// runShards runs the shards scenario (scenario.Shards) and, unless the
// sharded scenario already measured them in this run, the same number of
// plain elections on one elector, for the steady state's comparison.
func runShards(cfg config, st *env.Store, r *report.Store, fail func(string, error), logf func(string, ...any)) {
	m, o := cfg.groupMs[st.Kind], cand.Opts{TTL: ttls[st.Kind], LockDelay: time.Millisecond}
	kill := st.Kind != env.Consul || cfg.groupKill
	s, err := scenario.Shards(st, cfg.groupN, m, cfg.shardWindow, cfg.groupSettle, kill, o)
	if err != nil {
		fail(fmt.Sprintf("shards %d/%d", cfg.groupN, m), err)
	}
	settle := cfg.groupSettle
	if settle == 0 {
		settle = o.TTL
	}
	g := report.ShardGroup{N: cfg.groupN, M: m, Settle: settle.String(), RoundTripMs: ms(s.RoundTrip), ColdSeconds: s.Cold.Seconds(),
		ColdRequests: s.ColdRequests, ColdCalls: s.ColdCalls, SteadyRequestsPerSec: s.SteadyRequestsPerSec,
		SteadyNotificationsPerSec: s.SteadyNotificationsPerSec, HeapBytesPerShard: s.HeapPerShard, Goroutines: s.Goroutines,
		JoinMoves: s.JoinMoves, JoinToNew: s.JoinToNew, JoinReleases: s.JoinReleases, JoinBalanceSeconds: s.JoinBalance.Seconds(),
		JoinMaxUnownedMs: ms(s.JoinMaxUnowned), KillSeconds: s.Kill.Seconds(), KillBalanceSeconds: s.KillBalance.Seconds()}
	if !kill {
		g.KillSkipped = "quick mode (Consul's TTL is 10 s)"
	}
	plain, ok := r.ShardedAt(m)
	if !ok {
		p, err := scenario.Sharded(st, m, cfg.shardWindow, o)
		if err != nil {
			fail(fmt.Sprintf("shards: plain elections %d", m), err)
		}
		plain = report.Sharded{M: m, RequestsPerSec: p.RequestsPerSec, HeapBytesPerElect: p.HeapPerElection}
	}
	g.PlainRequestsPerSec, g.PlainHeapBytesPerElect = plain.RequestsPerSec, plain.HeapBytesPerElect
	r.Shards = append(r.Shards, g)
	logf("shards %+v", g)
}
