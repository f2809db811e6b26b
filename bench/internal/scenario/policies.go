package scenario

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/lease"
)

// PolicyResult is the outcome of Policies at one N: three hand-off series
// and the store's write round trip, measured in turn on the same machine.
type PolicyResult struct {
	// Planned are leasehold's planned handovers: Leadership.HandOver to a
	// waiter drawn at random from the line, until that waiter's Campaign
	// returned. A handover won by another is a miss, not a sample.
	Planned []time.Duration
	// Graceful are leasehold's graceful hand-offs: Resign until the next
	// in line's Campaign returned.
	Graceful []time.Duration
	// Native are the store-native peer's graceful hand-offs with as many
	// waiters: Release until the next in line's Acquire returned.
	Native []time.Duration
	// RoundTrip are the store's write round trips, one before each
	// hand-off.
	RoundTrip []time.Duration
	// Misses counts planned handovers another candidate won.
	Misses int
	// PlannedReq, GracefulReq and NativeReq are the store's requests per
	// hand-off cycle (release, successor leading, the old leader joining
	// the line again), net of renewals and the background, as
	// HerdResult.RequestsPerFailover.
	PlannedReq, GracefulReq, NativeReq float64
	// BackgroundRequestsPerSec is the request rate while all wait.
	BackgroundRequestsPerSec float64
}

// policies is a running Policies measurement.
type policies struct {
	st     *env.Store
	n      int
	el     string // the leasehold election
	es     []*lease.LeaseElector
	lh, nt *line
	nat    []cand.Candidate
	p      *prober
	r      PolicyResult
	// req sums each series' requests so far.
	req [3]float64
	// bgWork is the background rate of requests other than renewals.
	bgWork float64
	// passed, if set, is told of each hand-off: its series, when it
	// began, the old leader and the successor's win.
	passed func(s int, t0 time.Time, old int, w lineWin)
}

// The series, in the order of a round (rotated from round to round).
const (
	planned = iota
	graceful
	native
)

// Policies measures k hand-offs of each series of PolicyResult with n
// waiters: a line of n+1 leasehold electors (one client and session each,
// identities "h-0" to "h-n") and one of n+1 native candidates, on two
// elections, handing over in turn. Before each leasehold hand-off the line
// is whole again (an observer elector sees n waiters and the leader), and
// every waiter has waited at least Pace. The setup and the background
// rate run in st's turn (see turn.Lock), and so does each step's round
// trip and hand-off (see step).
func Policies(st *env.Store, n, k int, o cand.Opts) (PolicyResult, error) {
	var p *policies
	err := st.Turn.Do(func() (err error) {
		p, err = setupPolicies(st, n, o)
		return err
	})
	if p == nil {
		return PolicyResult{}, err
	}
	defer p.stop()
	if err != nil {
		return p.r, err
	}
	return p.run(k, []int{planned, graceful, native})
}

// setupPolicies starts Policies' lines and measures the background. It
// returns nil if the lines did not start.
func setupPolicies(st *env.Store, n int, o cand.Opts) (*policies, error) {
	o.Identity = "h"
	es, closeAll, err := cand.Electors(st, n+2, n+2, o) // the last one observes
	if err != nil {
		return nil, err
	}
	p, err := startPolicies(st, n, es, closeAll, o)
	if err != nil {
		return nil, err
	}
	bg, err := background(st, 2*time.Second)
	p.r.BackgroundRequestsPerSec, p.bgWork = bg.Requests, bg.Work()
	return p, err
}

// run measures k rounds of the series ss, rotating their order.
func (p *policies) run(k int, ss []int) (PolicyResult, error) {
	for i := range k {
		for j := range ss {
			if err := p.step(ss[(i+j)%len(ss)]); err != nil {
				return p.result(), fmt.Errorf("round %d: %w", i, err)
			}
		}
	}
	return p.result(), nil
}

// startPolicies starts both lines on the electors es (n+1 candidates and
// an observer, closed by closeAll) and waits until the leasehold line is
// whole.
func startPolicies(st *env.Store, n int, es []*lease.LeaseElector, closeAll func(), o cand.Opts) (*policies, error) {
	var err error
	p := &policies{st: st, n: n, el: fmt.Sprintf("policies-%d-%d", n, time.Now().UnixNano()), es: es}
	campaign := func(ctx context.Context, i int) (*lease.Leadership, error) { return es[i].Campaign(ctx, p.el) }
	if p.lh, err = startLine(n, campaign, closeAll); err != nil {
		return nil, err
	}
	if err := p.startNative(o); err != nil {
		p.lh.stop()
		return nil, err
	}
	if p.p, err = newProber(st); err != nil {
		p.stop()
		return nil, err
	}
	if err := awaitSessions(es[:n+1]); err != nil {
		p.stop()
		return nil, err
	}
	if _, err := p.whole(); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// startNative starts the line of n+1 native candidates.
func (p *policies) startNative(o cand.Opts) error {
	el := fmt.Sprintf("policies-native-%d-%d", p.n, time.Now().UnixNano())
	closeAll := func() {
		for _, c := range p.nat {
			c.Close()
		}
	}
	for range p.n + 1 {
		c, err := cand.New(cand.Native, p.st, el, o)
		if err != nil {
			closeAll()
			return err
		}
		p.nat = append(p.nat, c)
	}
	acquire := func(ctx context.Context, i int) (*lease.Leadership, error) { return nil, p.nat[i].Acquire(ctx) }
	var err error
	p.nt, err = startLine(p.n, acquire, closeAll)
	return err
}

func (p *policies) stop() {
	if p.p != nil {
		p.p.close()
	}
	if p.nt != nil {
		p.nt.stop()
	}
	p.lh.stop()
}

// step measures one hand-off of series s: a round trip, then the
// hand-off, then Pace for the old leader to join the line again, with the
// store's counts around the hand-off and that Pace. The round trip, the
// counts read before the hand-off and the hand-off run in the store's
// turn (see turn.Lock); the wait for a whole line, the Pace and the
// counts read after it outside.
func (p *policies) step(s int) error {
	var to string
	if s != native {
		cs, err := p.whole()
		if err != nil {
			return err
		}
		to = pick(cs)
	}
	old := p.lh.cur.i
	if s == native {
		old = p.nt.cur.i
	}
	c0, t0, w, d, err := p.measured(s, to)
	if err != nil {
		return err
	}
	if p.passed != nil {
		p.passed(s, w.at.Add(-d), old, w)
	}
	time.Sleep(Pace)
	c1, _ := p.st.Counts(context.Background())
	p.req[s] += c1.Sub(c0).Work() - p.bgWork*time.Since(t0).Seconds()
	p.record(s, d, to, w)
	return nil
}

// measured is step's measured section, in the store's turn: a round trip,
// the store's counts c0 at t0, and series s's hand-off (see pass), w its
// successor's win and d its latency.
func (p *policies) measured(s int, to string) (c0 env.Counts, t0 time.Time, w lineWin, d time.Duration, err error) {
	err = p.st.Turn.Do(func() error {
		rtt, err := p.p.probe()
		if err != nil {
			return fmt.Errorf("round trip: %w", err)
		}
		p.r.RoundTrip = append(p.r.RoundTrip, rtt)
		c0, _ = p.st.Counts(context.Background())
		t0 = time.Now()
		w, d, err = p.pass(s, to)
		return err
	})
	return c0, t0, w, d, err
}

// pass hands over once in series s (to: the planned handover's target).
func (p *policies) pass(s int, to string) (lineWin, time.Duration, error) {
	switch s {
	case planned:
		l := p.lh.cur.l
		return p.lh.pass(func(ctx context.Context) error { return l.HandOver(ctx, to) })
	case graceful:
		l := p.lh.cur.l
		return p.lh.pass(l.Resign)
	default:
		c := p.nat[p.nt.cur.i]
		return p.nt.pass(c.Release)
	}
}

func (p *policies) record(s int, d time.Duration, to string, w lineWin) {
	switch {
	case s == planned && w.l.Identity != to:
		p.r.Misses++
	case s == planned:
		p.r.Planned = append(p.r.Planned, d)
	case s == graceful:
		p.r.Graceful = append(p.r.Graceful, d)
	default:
		p.r.Native = append(p.r.Native, d)
	}
}

// result returns the result so far.
func (p *policies) result() PolicyResult {
	r := p.r
	per := func(i, n int) float64 {
		if n == 0 {
			return 0
		}
		return p.req[i] / float64(n)
	}
	r.PlannedReq = per(planned, len(r.Planned)+r.Misses)
	r.GracefulReq, r.NativeReq = per(graceful, len(r.Graceful)), per(native, len(r.Native))
	return r
}

// pick draws a waiter of cs at random (any position in line) and returns
// its identity.
func pick(cs []lease.Candidate) string {
	var ws []string
	for _, c := range cs {
		if !c.Leader && c.MayLead && !c.Requester {
			ws = append(ws, c.Identity)
		}
	}
	return ws[rand.IntN(len(ws))]
}

// whole waits until the observer sees the leasehold line whole (the
// current leader and n waiters) and returns that candidate list. The
// observer follows the list only while whole waits, outside the store's
// counts of a hand-off.
func (p *policies) whole() ([]lease.Candidate, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch, err := p.es[p.n+1].ObserveCandidates(ctx, p.el)
	if err != nil {
		return nil, err
	}
	var last []lease.Candidate
	for cs := range ch {
		if last = cs; p.isWhole(cs) {
			return cs, nil
		}
	}
	return nil, fmt.Errorf("line of %d not whole within 30s; last seen %d candidates", p.n+1, len(last))
}

func (p *policies) isWhole(cs []lease.Candidate) bool {
	lead, waiting := "", 0
	for _, c := range cs {
		switch {
		case c.Leader:
			lead = c.Identity
		case c.MayLead && !c.Requester:
			waiting++
		}
	}
	return lead == p.lh.cur.l.Identity && waiting == p.n
}
