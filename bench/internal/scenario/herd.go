package scenario

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/lease"
)

// HerdResult is the outcome of one herd run.
type HerdResult struct {
	// Latencies are the hand-off latencies.
	Latencies []time.Duration
	// RequestsPerFailover and NotificationsPerFailover are the store's
	// counters per hand-off cycle (release, successor's win, the others
	// going back to wait, the old leader campaigning again), with the
	// background rate measured while all waited (keep-alives) subtracted.
	RequestsPerFailover, NotificationsPerFailover float64
	// BackgroundRequestsPerSec is that background rate.
	BackgroundRequestsPerSec float64
	// Setup is the time for all N to campaign and one to win.
	Setup time.Duration
}

// Merge returns r and o as one run: the latencies of both, and the
// counts per failover and the rates averaged, weighted by hand-offs.
func (r HerdResult) Merge(o HerdResult) HerdResult {
	a, b := float64(len(r.Latencies)), float64(len(o.Latencies))
	if a+b == 0 {
		return r
	}
	avg := func(x, y float64) float64 { return (x*a + y*b) / (a + b) }
	return HerdResult{Latencies: append(append([]time.Duration(nil), r.Latencies...), o.Latencies...),
		RequestsPerFailover:      avg(r.RequestsPerFailover, o.RequestsPerFailover),
		NotificationsPerFailover: avg(r.NotificationsPerFailover, o.NotificationsPerFailover),
		BackgroundRequestsPerSec: avg(r.BackgroundRequestsPerSec, o.BackgroundRequestsPerSec),
		Setup:                    max(r.Setup, o.Setup)}
}

// herdWin is a leadership won in a herd.
type herdWin struct {
	l  *lease.Leadership
	at time.Time
}

// Herd runs n leasehold candidates for one election, one elector (one
// session) each, on conns shared clients, and measures k hand-offs: the
// leader idles Pace, resigns and campaigns again.
func Herd(st *env.Store, n, conns, k int, o cand.Opts) (HerdResult, error) {
	var r HerdResult
	es, closeAll, err := cand.Electors(st, n, conns, o)
	if err != nil {
		return r, err
	}
	defer closeAll()
	election := fmt.Sprintf("herd-%d-%d", n, time.Now().UnixNano())
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	wins := make(chan herdWin, n)
	start := time.Now()
	for _, e := range es {
		wg.Go(func() { campaignLoop(ctx, e, election, wins) })
	}
	w, err := recv(wins, "herd first leader")
	if err != nil {
		return r, err
	}
	r.Setup = time.Since(start)
	if err := awaitSessions(es); err != nil {
		return r, err
	}
	// Quiet: the sessions' renewals (one per TTL/3 each, at most) and
	// little else.
	if _, err := settle(st, 20+float64(n)*3/o.TTL.Seconds()*1.2); err != nil {
		return r, err
	}
	r.BackgroundRequestsPerSec, err = backgroundRate(st, 2*time.Second)
	if err != nil {
		return r, err
	}
	var req, note float64
	for range k {
		time.Sleep(Pace)
		c0, _ := st.Counts(context.Background())
		t0 := time.Now()
		_ = w.l.Resign(context.Background())
		if w, err = recv(wins, "herd successor"); err != nil {
			return r, err
		}
		r.Latencies = append(r.Latencies, w.at.Sub(t0))
		time.Sleep(Pace) // the others go back to waiting
		c1, _ := st.Counts(context.Background())
		d := c1.Sub(c0)
		req += d.Requests - r.BackgroundRequestsPerSec*time.Since(t0).Seconds()
		note += d.Notifications
	}
	r.RequestsPerFailover, r.NotificationsPerFailover = req/float64(k), note/float64(k)
	return r, nil
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
	c0, err := st.Counts(context.Background())
	if err != nil {
		return 0, err
	}
	time.Sleep(d)
	c1, err := st.Counts(context.Background())
	if err != nil {
		return 0, err
	}
	return c1.Sub(c0).Requests / d.Seconds(), nil
}
