package scenario

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/turn"
	"github.com/leasehold/leasehold/lease"
)

// HerdResult is the outcome of one herd run.
type HerdResult struct {
	// Latencies are the hand-off latencies.
	Latencies []time.Duration
	// RequestsPerFailover and NotificationsPerFailover are the store's
	// counters per hand-off cycle (release, successor's win, the others
	// going back to wait, the old leader campaigning again). Requests are
	// net of session renewals (env.Counts.Work: etcd and Consul tell
	// them) and of the other requests' background rate, measured while
	// all waited; on ZooKeeper, whose pings cannot be told apart, of the
	// whole background rate.
	RequestsPerFailover, NotificationsPerFailover float64
	// BackgroundRequestsPerSec is the request rate while all waited,
	// renewals included.
	BackgroundRequestsPerSec float64
	// Setup is the time for all N to campaign and one to win.
	Setup time.Duration
	// Quiet is the time the store took to be quiet after the setup (see
	// quiet), at most a minute.
	Quiet time.Duration
}

// herdWin is a leadership won in a herd.
type herdWin struct {
	l  *lease.Leadership
	at time.Time
}

// Herd runs n leasehold candidates for one election, one elector (one
// session) each, on conns shared clients, and measures k hand-offs: the
// leader idles Pace, resigns and campaigns again. It holds st's turn (see
// turn.Lock) for its whole run: a herd of a thousand sessions loads the
// machine from its setup to its stop, and its quiet wait and hand-offs
// read the store's counts.
func Herd(st *env.Store, n, conns, k int, o cand.Opts) (r HerdResult, err error) {
	err = st.Turn.Do(func() error {
		r, err = herdRun(st, n, conns, k, o)
		return err
	})
	return r, err
}

// herdRun is Herd, in the turn.
func herdRun(st *env.Store, n, conns, k int, o cand.Opts) (HerdResult, error) {
	h, err := startHerd(st, n, conns, o)
	if err != nil {
		return HerdResult{}, err
	}
	defer h.stop()
	if err := quiet(st, []*herd{h}); err != nil {
		return h.r, err
	}
	for range k {
		if err := h.handoff(st, Pace, nil); err != nil {
			return h.r, err
		}
	}
	return h.result(), nil
}

// HerdPair measures k hand-offs of each of two herds of n candidates that
// differ only in their options, a and b, running side by side on two
// elections: the herds hand over in turn (a then b, then b then a, and so
// on), so that both see the same machine at the same time. The store's
// counts in each hand-off's window are that herd's, the other being idle.
// A hand-off does not idle Pace before its resign as Herd's do: the
// hand-off before it, of either herd, ended with Pace idle, and this
// herd's leader has idled since its win through its own hand-off's Pace
// and the other herd's whole hand-off. The setup and the quiet wait run
// in st's turn (see turn.Lock), and so does each hand-off, its Pace
// outside it.
func HerdPair(st *env.Store, n, conns, k int, a, b cand.Opts) (HerdResult, HerdResult, error) {
	var ha, hb *herd
	err := st.Turn.Do(func() (err error) {
		ha, hb, err = startPair(st, n, conns, a, b)
		return err
	})
	if ha == nil {
		return HerdResult{}, HerdResult{}, err
	}
	defer ha.stop()
	defer hb.stop()
	if err != nil {
		return ha.r, hb.r, err
	}
	for i := range k {
		first, second := ha, hb
		if i%2 == 1 {
			first, second = hb, ha
		}
		if err := first.handoff(st, 0, st.Turn); err != nil {
			return ha.r, hb.r, err
		}
		if err := second.handoff(st, 0, st.Turn); err != nil {
			return ha.r, hb.r, err
		}
	}
	return ha.result(), hb.result(), nil
}

// startPair starts HerdPair's two herds and waits for the store to be
// quiet. It returns both herds, or neither if one did not start.
func startPair(st *env.Store, n, conns int, a, b cand.Opts) (*herd, *herd, error) {
	ha, err := startHerd(st, n, conns, a)
	if err != nil {
		return nil, nil, err
	}
	hb, err := startHerd(st, n, conns, b)
	if err != nil {
		ha.stop()
		return nil, nil, err
	}
	return ha, hb, quiet(st, []*herd{ha, hb})
}

// herd is a running herd: n electors campaigning for one election.
type herd struct {
	n      int
	ttl    time.Duration
	wins   chan herdWin
	w      herdWin // the current leader
	cancel context.CancelFunc
	wg     sync.WaitGroup
	close  func()
	r      HerdResult
	// req and note sum the counts of the hand-offs so far.
	req, note float64
	// bgWork is the background rate of requests other than renewals.
	bgWork float64
}

// startHerd starts n candidates and waits for the first leader and every
// session.
func startHerd(st *env.Store, n, conns int, o cand.Opts) (*herd, error) {
	es, closeAll, err := cand.Electors(st, n, conns, o)
	if err != nil {
		return nil, err
	}
	election := fmt.Sprintf("herd-%d-%d", n, time.Now().UnixNano())
	ctx, cancel := context.WithCancel(context.Background())
	h := &herd{n: n, ttl: o.TTL, wins: make(chan herdWin, n), cancel: cancel, close: closeAll}
	start := time.Now()
	for _, e := range es {
		h.wg.Go(func() { campaignLoop(ctx, e, election, h.wins) })
	}
	if h.w, err = recv(h.wins, "herd first leader"); err != nil {
		h.stop()
		return nil, err
	}
	h.r.Setup = time.Since(start)
	if err := awaitSessions(es); err != nil {
		h.stop()
		return nil, err
	}
	return h, nil
}

func (h *herd) stop() {
	h.cancel()
	h.wg.Wait()
	h.close()
}

// quiet waits until the store is quiet with the herds waiting (the
// sessions' renewals and little else), and measures that background rate.
// A session's renewals, pings included, cost the store 6/TTL requests a
// second at most: the runs of 2026-11-23 measured 5/TTL on etcd and
// Consul (0.5/s at 10 s) and 5.6/TTL on ZooKeeper (1.4/s at 4 s); the
// earlier bound, 3/TTL, was below them from N = 1,000 on, and every herd
// that size waited out settle's minute. The windows are 2 s, a session's
// request interval on etcd and Consul: sessions made together may renew
// together, and in 1 s windows bursts 2 s apart would make every other
// window loud, never two calm in a row.
func quiet(st *env.Store, hs []*herd) error {
	q := 20.0
	for _, h := range hs {
		q += float64(h.n) * 6 / h.ttl.Seconds() * 1.2
	}
	t0 := time.Now()
	if _, err := settleEvery(func() (env.Counts, error) { return st.Counts(context.Background()) }, q, 2*time.Second); err != nil {
		return err
	}
	for _, h := range hs {
		h.r.Quiet = time.Since(t0)
	}
	bg, err := background(st, 2*time.Second)
	for _, h := range hs {
		h.r.BackgroundRequestsPerSec, h.bgWork = bg.Requests, bg.Work()
	}
	return err
}

// handoff idles lead, has the leader resign, waits for the successor,
// idles Pace (the others go back to waiting), and adds the latency and
// the store's counts, background subtracted. The counts read before the
// resign, the resign and the wait for the successor run in turn t (nil:
// the caller holds the turn), the Pace and the counts read after it
// outside.
func (h *herd) handoff(st *env.Store, lead time.Duration, t *turn.Lock) error {
	time.Sleep(lead)
	var c0 env.Counts
	var t0 time.Time
	err := t.Do(func() (err error) {
		c0, _ = st.Counts(context.Background())
		t0 = time.Now()
		_ = h.w.l.Resign(context.Background())
		h.w, err = recv(h.wins, "herd successor")
		return err
	})
	if err != nil {
		return err
	}
	h.r.Latencies = append(h.r.Latencies, h.w.at.Sub(t0))
	time.Sleep(Pace)
	c1, _ := st.Counts(context.Background())
	d := c1.Sub(c0)
	h.req += d.Work() - h.bgWork*time.Since(t0).Seconds()
	h.note += d.Notifications
	return nil
}

// result returns the herd's result so far.
func (h *herd) result() HerdResult {
	r := h.r
	if k := float64(len(r.Latencies)); k > 0 {
		r.RequestsPerFailover, r.NotificationsPerFailover = h.req/k, h.note/k
	}
	return r
}

// campaignLoop campaigns until ctx ends; every win is reported, and the
// winner waits for its leadership to end before campaigning again.
func campaignLoop(ctx context.Context, e *lease.LeaseElector, election string, wins chan<- herdWin) {
	for ctx.Err() == nil {
		l, err := e.Campaign(ctx, election)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		wins <- herdWin{l: l, at: time.Now()}
		select {
		case <-l.Context().Done():
		case <-ctx.Done():
		}
	}
}

// awaitSessions waits until every elector has a live session.
func awaitSessions(es []*lease.LeaseElector) error {
	ctx, cancel := bg()
	defer cancel()
	for _, e := range es {
		if _, err := e.AwaitSession(ctx); err != nil {
			return err
		}
	}
	return nil
}

// backgroundRate measures the store's request rate over d.
func backgroundRate(st *env.Store, d time.Duration) (float64, error) {
	bg, err := background(st, d)
	return bg.Requests, err
}

// background measures the store's counts per second over d. A hand-off's
// requests are counted net of renewals (Counts.Work) and of this rate's
// other requests: a window of a few hundred milliseconds holds a burst of
// a thousand sessions' renewals or none, and the renewal rate of a 2 s
// window is no estimate of it.
func background(st *env.Store, d time.Duration) (env.Counts, error) {
	c0, err := st.Counts(context.Background())
	if err != nil {
		return env.Counts{}, err
	}
	time.Sleep(d)
	c1, err := st.Counts(context.Background())
	if err != nil {
		return env.Counts{}, err
	}
	c := c1.Sub(c0)
	s := d.Seconds()
	return env.Counts{Requests: c.Requests / s, Notifications: c.Notifications / s, Renewals: c.Renewals / s}, nil
}
