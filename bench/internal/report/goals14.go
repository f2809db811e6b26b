package report

import "fmt"

// The sharded goals' sizes: growth is judged from shardMid to shardBig
// elections, and may stay below one goroutine or connection per
// growthPer elections (docs/benchmarks.md, Method).
const (
	shardMid, shardBig = 100, 10000
	growthPer          = 100
	handful            = 5
)

// shardedGoals returns issue 14's goals 1 and 5 on s: heap, load and
// acquisition at 10,000 elections, goroutines and connections by M.
func shardedGoals(r *Results, s *Store) []goal {
	one, mid, big := s.shardedAt(1), s.shardedAt(shardMid), s.shardedAt(shardBig)
	heap := goal{name: "10,000 elections: Go heap ≤ 4 KiB per election", store: s.Name}
	load := goal{name: "10,000 elections: store req/s ≤ 1 election's + watch traffic", store: s.Name}
	acq := goal{name: "10,000 elections: acquire all ≤ 2× etcd's", store: s.Name}
	gor := goal{name: fmt.Sprintf("goroutines: growth M=100→10,000 < 1 per %d elections", growthPer), store: s.Name}
	con := goal{name: fmt.Sprintf("connections: the elector's ≤ %d at M=10,000, growth M=100→10,000 < 1 per %d elections", handful, growthPer), store: s.Name}
	if ran(big) {
		heap.measured, heap.met = fmt.Sprintf("%.0f B", big.HeapBytesPerElect), big.HeapBytesPerElect <= 4096
		if e := r.sharded("etcd", shardBig); ran(e) {
			acq.measured = fmt.Sprintf("%.2f / %.2f s = %s", big.AcquireSeconds, e.AcquireSeconds, ratio(big.AcquireSeconds, e.AcquireSeconds))
			acq.met = big.AcquireSeconds <= 2*e.AcquireSeconds
		}
	}
	if ran(big) && ran(one) {
		load.measured = fmt.Sprintf("%.2f vs %.2f + %.2f req/s", big.RequestsPerSec, one.RequestsPerSec, big.NotificationsPerSec)
		load.met = big.RequestsPerSec <= one.RequestsPerSec+big.NotificationsPerSec+0.5
	}
	if ran(big) && ran(mid) {
		limit := (shardBig - shardMid) / growthPer
		gor.measured = fmt.Sprintf("%d → %d (+%d, limit +%d)", mid.Goroutines, big.Goroutines, big.Goroutines-mid.Goroutines, limit)
		gor.met = big.Goroutines-mid.Goroutines < limit
		own := big.Conns - big.ConnsBefore // not those other scenarios' clients left open
		con.measured = fmt.Sprintf("%d → %d (%d the elector's)", mid.Conns, big.Conns, own)
		con.met = own <= handful && big.Conns-mid.Conns < limit
	}
	gs := []goal{heap, load, acq, gor, con}
	if s.Name == "etcd" {
		gs = append(gs[:2], gs[3:]...) // etcd is the acquisition's reference
	}
	return gs
}

// ran reports whether a sharded run was made and succeeded.
func ran(h Sharded) bool { return h.M != 0 && h.Skipped == "" && h.AcquireSeconds > 0 }

// shardedAt returns s's sharded run of m elections, or an empty one.
func (s *Store) shardedAt(m int) Sharded {
	for _, h := range s.Sharded {
		if h.M == m {
			return h
		}
	}
	return Sharded{}
}

// sharded returns the sharded run of m elections on the named store.
func (r *Results) sharded(store string, m int) Sharded {
	for _, s := range r.Stores {
		if s.Name == store {
			return s.shardedAt(m)
		}
	}
	return Sharded{}
}

// idleGoals returns goal 3: an idle leader's and waiter's requests per
// minute no more than the native client's at the same TTL.
func idleGoals(s *Store) []goal {
	var lh, nat Idle
	for _, i := range s.Idle {
		switch i.Lib {
		case "leasehold":
			lh = i
		case "native":
			nat = i
		}
	}
	leader := goal{name: "idle leader req/min ≤ native's", store: s.Name}
	waiter := goal{name: "idle waiter req/min ≤ native's", store: s.Name}
	if lh.Lib != "" && nat.Lib != "" {
		leader.measured = fmt.Sprintf("%.0f / %.0f (%s) = %s", lh.LeaderPerMin, nat.LeaderPerMin, nat.Peer, ratio(lh.LeaderPerMin, nat.LeaderPerMin))
		leader.met = lh.LeaderPerMin <= nat.LeaderPerMin
		waiter.measured = fmt.Sprintf("%.0f / %.0f (%s) = %s", lh.CandidatePerMin, nat.CandidatePerMin, nat.Peer, ratio(lh.CandidatePerMin, nat.CandidatePerMin))
		waiter.met = lh.CandidatePerMin <= nat.CandidatePerMin
	}
	return []goal{leader, waiter}
}

// slowLinkGoal returns goal 4: no leasehold leader lost while the reply
// latency stays below its bound.
func slowLinkGoal(s *Store) goal {
	g := goal{name: "slow link: leasehold leader losses = 0 at latency < bound", store: s.Name}
	var lh, nat SlowLink
	for _, l := range s.SlowLink {
		switch l.Lib {
		case "leasehold":
			lh = l
		case "native":
			nat = l
		}
	}
	if lh.Cycles == 0 || lh.LatencyMs >= lh.BoundMs {
		return g // not run, or the latency is not below the bound: no goal
	}
	g.measured = fmt.Sprintf("%d of %d cycles lost (%s: %d of %d); latency %.0f ms, bound %.0f ms",
		lh.Losses, lh.Cycles, nat.Peer, nat.Losses, nat.Cycles, lh.LatencyMs, lh.BoundMs)
	g.met = lh.Losses == 0
	return g
}
