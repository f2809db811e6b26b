package scenario

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
)

// Variant says when the waiter began waiting before the release.
type Variant string

// The hand-off variants.
const (
	// Settled: the waiter began waiting Pace before the release.
	Settled Variant = "settled"
	// Fresh: the waiter began waiting 0–100 ms before the release.
	Fresh Variant = "fresh"
)

// Series is one library's hand-off series in a Handoffs run: N hand-offs
// between two candidates of Lib.
type Series struct {
	Lib cand.Lib
	N   int
}

// Handoffs measures graceful hand-offs of several libraries on st side by
// side: it sets up two candidates of each series' library, the first of
// them leading, then in round i hands off once for each series still
// short of its N, the series taking turns in an order rotated by one each
// round, so that every library's i-th sample is taken next to the
// others' (the order rotates among the series that hand off that
// round). In each hand-off the leader idles Pace after it won, then
// releases; the latency runs from the call to Release to the moment the
// waiter's Acquire returns. Each hand-off is measured in st's turn, its
// idle outside it (see handoffOnce). A pair's candidates swap roles after each
// hand-off. It returns each series' latencies and error, by index; a
// series that fails stops, the others go on.
func Handoffs(st *env.Store, v Variant, series []Series, o cand.Opts) ([][]time.Duration, []error) {
	out, errs := make([][]time.Duration, len(series)), make([]error, len(series))
	ps := make([]*handoffPair, len(series))
	for i, s := range series {
		ps[i], errs[i] = newHandoffPair(st, s.Lib, v, o)
		if ps[i] != nil {
			defer ps[i].close()
		}
	}
	for r := 0; ; r++ {
		due := dueSeries(series, out, errs)
		if len(due) == 0 {
			return out, errs
		}
		for k := range due {
			i := due[(r+k)%len(due)]
			d, err := ps[i].handoff(v, len(out[i]))
			if err != nil {
				errs[i] = fmt.Errorf("hand-off %d: %w", len(out[i]), err)
				continue
			}
			out[i] = append(out[i], d)
		}
	}
}

// dueSeries returns the indexes of the series that hand off in the next
// round: those with no error and fewer than N samples in out.
func dueSeries(series []Series, out [][]time.Duration, errs []error) []int {
	var due []int
	for i, s := range series {
		if errs[i] == nil && len(out[i]) < s.N {
			due = append(due, i)
		}
	}
	return due
}

// handoffPair is two candidates of one library for one election.
type handoffPair struct {
	st *env.Store
	cs [2]cand.Candidate
}

// newHandoffPair makes a pair for a new election and has its first
// candidate lead.
func newHandoffPair(st *env.Store, lib cand.Lib, v Variant, o cand.Opts) (*handoffPair, error) {
	election := fmt.Sprintf("handoff-%s-%s-%d", v, lib, time.Now().UnixNano())
	p := &handoffPair{st: st}
	for i := range p.cs {
		c, err := cand.New(lib, st, election, o)
		if err != nil {
			p.close()
			return nil, err
		}
		p.cs[i] = c
	}
	ctx, cancel := bg()
	defer cancel()
	if err := p.cs[0].Acquire(ctx); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// handoff makes the pair's i-th hand-off: from cs[i%2] to the other.
func (p *handoffPair) handoff(v Variant, i int) (time.Duration, error) {
	return handoffOnce(p.st, p.cs[i%2], p.cs[(i+1)%2], v)
}

// close closes the pair's candidates.
func (p *handoffPair) close() {
	for _, c := range p.cs {
		if c != nil {
			c.Close()
		}
	}
}

// handoffOnce hands leadership from leader to waiter once. The release
// and the wait for the successor run in st's turn (see turn.Lock), the
// leader's idle before them outside it; a Fresh waiter's 0–100 ms start
// runs in the turn too, so that a wait for the turn does not age it.
func handoffOnce(st *env.Store, leader, waiter cand.Candidate, v Variant) (time.Duration, error) {
	var d time.Duration
	if v == Settled {
		w := startWaiter(waiter)
		time.Sleep(Pace)
		err := st.Turn.Do(func() (err error) { d, err = w.release(leader); return err })
		return d, err
	}
	join := time.Duration(rand.Int64N(int64(100 * time.Millisecond)))
	time.Sleep(Pace - join)
	err := st.Turn.Do(func() (err error) {
		w := startWaiter(waiter)
		time.Sleep(join)
		d, err = w.release(leader)
		return err
	})
	return d, err
}

// waiting is a waiter's Acquire under way: when it returned, and its error.
type waiting struct {
	at  chan time.Time
	won chan error
}

// startWaiter starts c's Acquire.
func startWaiter(c cand.Candidate) waiting {
	w := waiting{at: make(chan time.Time, 1), won: make(chan error, 1)}
	go func() {
		ctx, cancel := bg()
		defer cancel()
		err := c.Acquire(ctx)
		w.at <- wonAt(c)
		w.won <- err
	}()
	return w
}

// release has leader release and returns the time from the call to the
// waiter's Acquire returning.
func (w waiting) release(leader cand.Candidate) (time.Duration, error) {
	ctx, cancel := bg()
	defer cancel()
	t0 := time.Now()
	if err := leader.Release(ctx); err != nil {
		return 0, fmt.Errorf("release: %w", err)
	}
	if s, ok := leader.(cand.Stamped); ok {
		t0 = s.Releasing()
	}
	t1, err := recv(w.at, "successor")
	if err != nil {
		return 0, err
	}
	if err := <-w.won; err != nil {
		return 0, fmt.Errorf("acquire: %w", err)
	}
	return t1.Sub(t0), nil
}

// wonAt returns when c's Acquire returned: now, or for a candidate in
// another process, the time that process took.
func wonAt(c cand.Candidate) time.Time {
	if s, ok := c.(cand.Stamped); ok {
		return s.Won()
	}
	return time.Now()
}
