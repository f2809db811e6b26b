package scenario

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/trace"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/lease"
)

// Timeline is one traced leasehold hand-off: every store call of the
// line's electors that overlapped it, relative to its start.
type Timeline struct {
	// Series is "planned" or "graceful".
	Series string
	// Latency is the hand-off's latency.
	Latency time.Duration
	// Events are the calls, in order of their start; Who is "leader"
	// (the old one), "successor" or "other".
	Events []trace.Event
}

// String renders the timeline, one call a line, in milliseconds from the
// hand-off's start.
func (tl Timeline) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s hand-off, %.2f ms\n", tl.Series, ms(tl.Latency))
	var t0 time.Time
	if len(tl.Events) > 0 {
		t0 = tl.Events[0].Start
	}
	for _, e := range tl.Events {
		fmt.Fprintf(&b, "  %+8.2f %+8.2f  %-9s %s", ms(e.Start.Sub(t0)), ms(e.End.Sub(t0)), e.Who, e.Op)
		if e.Err != nil {
			fmt.Fprintf(&b, " (%v)", e.Err)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// TraceHandoffs runs k planned handovers and k graceful hand-offs, in
// turn, in a line of n+1 leasehold electors whose store calls are traced,
// and returns each hand-off's timeline. Unlike Policies it measures no
// native peer and no counts: it is for seeing where a hand-off's round
// trips go, not for its figures.
func TraceHandoffs(st *env.Store, n, k int, o cand.Opts) ([]Timeline, error) {
	log := &trace.Log{}
	es, closeAll, err := tracedElectors(st, n+2, o, log)
	if err != nil {
		return nil, err
	}
	p, err := startPolicies(st, n, es, closeAll, o)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	var tls []Timeline
	p.passed = func(s int, t0 time.Time, old int, w lineWin) {
		tl := Timeline{Series: map[int]string{planned: "planned", graceful: "graceful"}[s], Latency: w.at.Sub(t0)}
		tl.Events = append([]trace.Event{{Who: "bench", Op: "call", Start: t0, End: t0}}, log.Between(t0, w.at)...)
		tl.Events = append(tl.Events, trace.Event{Who: "bench", Op: "successor's Campaign returned", Start: w.at, End: w.at})
		for i := range tl.Events {
			tl.Events[i].Who = role(tl.Events[i].Who, old, w.i)
		}
		tls = append(tls, tl)
	}
	_, err = p.run(k, []int{planned, graceful})
	return tls, err
}

// role names elector who ("0", "1", …) by its part in a hand-off.
func role(who string, old, succ int) string {
	switch who {
	case fmt.Sprint(old):
		return "leader"
	case fmt.Sprint(succ):
		return "successor"
	case "bench":
		return who
	}
	return "other"
}

// tracedElectors returns n leasehold electors named h-0 … on st, each on
// its own client, its store calls recorded in log under its index.
func tracedElectors(st *env.Store, n int, o cand.Opts, log *trace.Log) ([]*lease.LeaseElector, func(), error) {
	var es []*lease.LeaseElector
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	for i := range n {
		s, c, err := cand.LeaseholdStore(st, o)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, c)
		e, err := lease.New(backends.NewStore(trace.Wrap(driver.Of(s), fmt.Sprint(i), log)), lease.Options{TTL: o.TTL, Identity: fmt.Sprintf("h-%d", i)})
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		es = append(es, e)
		closers = append(closers, func() { closeElector(e) })
	}
	return es, closeAll, nil
}

// closeElector closes e, waiting at most 10 s.
func closeElector(e *lease.LeaseElector) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = e.Close(ctx)
}
