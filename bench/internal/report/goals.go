package report

import (
	"fmt"
	"strings"
)

// goal is one goal of issue 5, 13 or 14 evaluated on one store.
type goal struct {
	name, store, measured string
	met                   bool
}

// Goals renders the goals of issues 5, 13 and 14, each met or missed with the ratio
// measured in this run.
func Goals(r *Results) string {
	var gs []goal
	for _, s := range r.Stores {
		gs = append(gs, handoffGoals(s)...)
		gs = append(gs, crashGoal(s))
		gs = append(gs, herdGoals(s)...)
		gs = append(gs, shardedGoals(r, s)...)
		gs = append(gs, idleGoals(s)...)
		gs = append(gs, slowLinkGoal(s))
		gs = append(gs, policyGoals(s)...)
	}
	var b strings.Builder
	b.WriteString("### Goals (issues 5, 13 and 14), ratios from this run\n\n| goal | store | measured | verdict |\n|---|---|---|---|\n")
	writeGoals(&b, gs)
	return b.String()
}

// writeGoals renders gs as rows of a goal table.
func writeGoals(b *strings.Builder, gs []goal) {
	for _, g := range gs {
		v := "**missed**"
		if g.met {
			v = "met"
		}
		if g.measured == "" {
			g.measured, v = "not measured", "–"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", g.name, g.store, g.measured, v)
	}
}

func handoffGoals(s *Store) []goal {
	var gs []goal
	for _, v := range []string{"settled", "fresh"} {
		// The goal's peer is the store-native one (concurrency.Election,
		// zk.Lock, api.Lock); valkeyrie's figures are in the table.
		lh, peer := s.handoff("leasehold", v), s.handoff("native", v)
		g := goal{name: "hand-off p99 ≤ store-native peer p99 (" + v + ")", store: s.Name}
		if lh.N > 0 && peer.N > 0 {
			g.measured = fmt.Sprintf("%.2f / %.2f ms (%s) = %s", lh.P99, peer.P99, peer.Peer, ratio(lh.P99, peer.P99))
			g.met = lh.P99 <= peer.P99
		}
		gs = append(gs, g)
		g = goal{name: "hand-off p99 ≤ 2.5× physical p99 (" + v + ")", store: s.Name}
		if lh.N > 0 && s.Physical.N > 0 {
			g.measured = ratio(lh.P99, s.Physical.P99)
			g.met = lh.P99 <= 2.5*s.Physical.P99
		}
		gs = append(gs, g)
	}
	set, fr := s.handoff("leasehold", "settled"), s.handoff("leasehold", "fresh")
	g := goal{name: "fresh-waiter p99 ≤ 1.5× settled p99", store: s.Name}
	if set.N > 0 && fr.N > 0 {
		g.measured, g.met = ratio(fr.P99, set.P99), fr.P99 <= 1.5*set.P99
	}
	return append(gs, g)
}

func crashGoal(s *Store) goal {
	limit := 1.2
	if s.Name == "consul" {
		limit = 2
	}
	g := goal{name: fmt.Sprintf("crash failover worst ≤ %.1f×TTL", limit), store: s.Name}
	for _, c := range s.Crash {
		if c.Lib == "leasehold" && c.N > 0 {
			g.measured = fmt.Sprintf("%.2f s / %.0f s = %.2f×", c.Max/1000, c.TTLSeconds, c.WorstOverTTL)
			g.met = c.WorstOverTTL <= limit
		}
	}
	return g
}

// herdGoals returns the herd goal for each mode measured (issue 14: the
// default's), and the default's hand-off at N=2 against key mode's.
func herdGoals(s *Store) []goal {
	var gs []goal
	for _, mode := range []string{HerdDefault, HerdKey, "queue"} {
		if g, ok := herdGoal(s, mode); ok {
			gs = append(gs, g)
		}
	}
	if g, ok := herd2Goal(s); ok {
		gs = append(gs, g)
	}
	return gs
}

// herd2Goal: the default's hand-off p50 at N=2 is within 1.1× key mode's.
func herd2Goal(s *Store) (goal, bool) {
	g := goal{name: "herd p50 at N=2, default ≤ 1.1× key mode", store: s.Name}
	var def, key Herd
	for _, h := range s.Herd {
		switch {
		case h.N == 2 && h.Mode == HerdDefault:
			def = h
		case h.N == 2 && h.Mode == HerdKey:
			key = h
		}
	}
	if len(def.Samples) == 0 || len(key.Samples) == 0 {
		return g, def.Mode != "" || key.Mode != ""
	}
	g.measured = fmt.Sprintf("%.2f / %.2f ms = %s", def.P50, key.P50, ratio(def.P50, key.P50))
	g.met = def.P50 <= 1.1*key.P50
	return g, true
}

// herdModeName names a herd mode in a goal's name.
func herdModeName(mode string) string {
	if mode == HerdDefault {
		return "default"
	}
	return mode + " mode"
}

func herdGoal(s *Store, mode string) (goal, bool) {
	g := goal{name: fmt.Sprintf("herd p50 at N=1,000 ≤ 2× N=10 (%s)", herdModeName(mode)), store: s.Name}
	var lo, hi Herd
	seen := false
	for _, h := range s.Herd {
		if h.Mode != mode && (h.Mode != "" || mode != "key") {
			continue
		}
		seen = true
		switch h.N {
		case 10:
			lo = h
		case 1000:
			hi = h
		}
	}
	if len(lo.Samples) > 0 && len(hi.Samples) > 0 { // Summary.N is shadowed by Herd.N in the JSON
		g.measured = fmt.Sprintf("%.2f / %.2f ms = %s", hi.P50, lo.P50, ratio(hi.P50, lo.P50))
		g.met = hi.P50 <= 2*lo.P50
	}
	return g, seen
}
