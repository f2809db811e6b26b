package bench

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/scenario"
)

// TestZooKeeperHandoffWire splits settled graceful hand-offs, as the
// benchmark makes them (the leader idles scenario.Pace, then releases),
// into what a proxy on the wire sees: from the release call until the
// leader's write leaves (pre), until the waiter's connection is notified
// (notified), until the waiter's read leaves (wake), the read's round
// trip (read), and from its answer until the waiter's Acquire returns
// (return). BENCH_ZKWIRE rounds on one ZooKeeper server, each a hand-off
// of leasehold and one of zk.Lock, in an order that alternates; the
// proxy adds its own hop to every component, on both sides alike. It
// logs each component's quantiles, the requests sent before the
// successor led, how often the server's first packet after the leader's
// write went to the successor, and the first and the middle hand-off of
// each, packet by packet. It measures nothing the benchmark reports.
func TestZooKeeperHandoffWire(t *testing.T) {
	k, _ := strconv.Atoi(os.Getenv("BENCH_ZKWIRE"))
	if k <= 0 {
		t.Skip("BENCH_ZKWIRE (rounds) not set")
	}
	link, err := env.NewLink(startStore(t, env.ZooKeeper))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(link.Close) // after the candidates' Close, which reach the server through it
	frames := &env.ZKFrames{}
	link.Tap(frames.Add)
	libs := []cand.Lib{cand.Leasehold, cand.Native}
	pairs := make([][2]cand.Candidate, len(libs))
	for i, lib := range libs {
		pairs[i] = wirePair(t, lib, link.Store)
	}
	split := make([][][]float64, len(libs))
	reqs, first := make([]int, len(libs)), make([]int, len(libs))
	for i := range k {
		for j := range libs {
			li := (i + j) % len(libs)
			t0, t1 := wireHandoff(t, pairs[li][i%2], pairs[li][(i+1)%2])
			ps := frames.Between(t0, t1)
			reqs[li] += countUp(ps)
			if waiterFirst(ps) {
				first[li]++
			}
			if c, ok := wireSplit(ps, t0, t1); ok {
				split[li] = append(split[li], c)
			}
			if i == 0 || i == k/2 {
				t.Logf("%s, hand-off %d:\n%s", cand.PeerName(libs[li], env.ZooKeeper), i, timeline(ps, t0))
			}
		}
	}
	for li, lib := range libs {
		t.Logf("%s: %d of %d hand-offs split; %.1f requests each before the waiter led; the waiter's connection heard first in %d",
			cand.PeerName(lib, env.ZooKeeper), len(split[li]), k, float64(reqs[li])/float64(k), first[li])
		for c, name := range []string{"pre", "notified", "wake", "read", "return", "total"} {
			t.Logf("  %-8s p50 %.2f  p90 %.2f  p99 %.2f ms", name, splitQ(split[li], c, 0.5), splitQ(split[li], c, 0.9), splitQ(split[li], c, 0.99))
		}
	}
}

// wirePair makes two candidates of lib for a new election on st, the
// first leading.
func wirePair(t *testing.T, lib cand.Lib, st *env.Store) [2]cand.Candidate {
	var p [2]cand.Candidate
	el := fmt.Sprintf("wire-%s-%d", lib, time.Now().UnixNano())
	for i := range p {
		c, err := cand.New(lib, st, el, cand.Opts{TTL: ttls[env.ZooKeeper]})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		p[i] = c
	}
	if err := p[0].Acquire(t.Context()); err != nil {
		t.Fatal(err)
	}
	return p
}

// wireHandoff has waiter wait, leader idle scenario.Pace and release, and
// returns when the release was called and when the waiter's Acquire
// returned.
func wireHandoff(t *testing.T, leader, waiter cand.Candidate) (t0, t1 time.Time) {
	won := make(chan error, 1)
	at := make(chan time.Time, 1)
	go func() {
		err := waiter.Acquire(t.Context())
		at <- time.Now()
		won <- err
	}()
	time.Sleep(scenario.Pace) // the idle measured, as the benchmark's
	t0 = time.Now()
	if err := leader.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case t1 = <-at:
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter did not lead within 30 s of the release")
	}
	if err := <-won; err != nil {
		t.Fatal(err)
	}
	return t0, t1
}

// wireSplit splits one hand-off's packets ps, from t0 to t1, into the
// test's components, in ms: the leader's write is the first delete or
// multi; the waiter's connection, the first other notified after it.
func wireSplit(ps []env.ZKPacket, t0, t1 time.Time) ([]float64, bool) {
	w := leaderWrite(ps)
	if w < 0 {
		return nil, false
	}
	e := slices.IndexFunc(ps[w:], func(p env.ZKPacket) bool { return p.Notification() && p.Conn != ps[w].Conn })
	if e < 0 {
		return nil, false
	}
	e += w
	r := slices.IndexFunc(ps[e:], func(p env.ZKPacket) bool { return p.Up && p.Conn == ps[e].Conn })
	if r < 0 {
		return nil, false
	}
	r += e
	a := slices.IndexFunc(ps[r:], func(p env.ZKPacket) bool { return !p.Up && p.Conn == ps[r].Conn && p.Xid == ps[r].Xid })
	if a < 0 {
		return nil, false
	}
	a += r
	at := []time.Time{t0, ps[w].At, ps[e].At, ps[r].At, ps[a].At, t1}
	var c []float64
	for i := 1; i < len(at); i++ {
		c = append(c, ms(at[i].Sub(at[i-1])))
	}
	return append(c, ms(t1.Sub(t0))), true
}

// splitQ returns the q quantile (nearest rank) of component c of the
// splits.
func splitQ(splits [][]float64, c int, q float64) float64 {
	if len(splits) == 0 {
		return 0
	}
	var xs []float64
	for _, s := range splits {
		xs = append(xs, s[c])
	}
	slices.Sort(xs)
	return xs[max(int(math.Ceil(q*float64(len(xs))))-1, 0)]
}

// countUp counts the requests among ps.
func countUp(ps []env.ZKPacket) int {
	n := 0
	for _, p := range ps {
		if p.Up {
			n++
		}
	}
	return n
}

// leaderWrite returns the index in ps of the leader's write, the first
// delete or multi, or -1.
func leaderWrite(ps []env.ZKPacket) int {
	return slices.IndexFunc(ps, func(p env.ZKPacket) bool {
		return p.Up && (p.Code == env.ZKOpDelete || p.Code == env.ZKOpMulti)
	})
}

// waiterFirst reports whether, after the leader's write in ps, the
// server's first packet went to another connection than the leader's: a
// write that also fires the leader's own watches may notify the leader
// first, and the server writes each connection's packets apart.
func waiterFirst(ps []env.ZKPacket) bool {
	w := leaderWrite(ps)
	if w < 0 {
		return false
	}
	d := slices.IndexFunc(ps[w:], func(p env.ZKPacket) bool { return !p.Up })
	return d >= 0 && ps[w+d].Conn != ps[w].Conn
}

// timeline renders ps, in ms from t0, one a line.
func timeline(ps []env.ZKPacket, t0 time.Time) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %+7.2f %s\n", ms(p.At.Sub(t0)), p)
	}
	return b.String()
}
