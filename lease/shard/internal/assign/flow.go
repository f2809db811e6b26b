package assign

import "math"

// flow solves the transport problem "shard s to member i at cost c[s][i],
// member i takes between lo[i] and hi[i] shards" by successive shortest
// paths on the member graph. It starts from every shard at its cheapest
// member (weighted rendezvous). Then, while a member is over hi, it moves
// one shard along the cheapest chain of moves from such a member to one
// under hi; then, while a member is under lo, along the cheapest chain from
// a member over lo. The edge j→k costs the least c[s][k]-c[s][j] over the
// shards s at j. Potentials keep the edge costs non-negative, so each
// search is Dijkstra over N nodes. Each phase ends at a min-cost transport
// for its bounds; ties go to the lowest index, so the caller fixes the
// member order (Assign sorts by ID).
type flow struct {
	n      int
	cost   []float64 // row-major, shard by member
	owner  []int
	load   []int
	lo, hi []int     // bounds on each member's load
	pot    []float64 // potentials: w(j,k)+pot[j]-pot[k] >= 0
	w      []float64 // n×n: cheapest move j→k
	arg    []int     // n×n: the shard that move takes
}

// solve assigns every shard and returns the owners.
func (f *flow) solve() []int {
	f.pot = make([]float64, f.n)
	f.w = make([]float64, f.n*f.n)
	f.arg = make([]int, f.n*f.n)
	for s := range f.owner {
		f.owner[s] = f.cheapest(s)
		f.load[f.owner[s]]++
	}
	all := make([]bool, f.n)
	for i := range all {
		all[i] = true
	}
	f.edges(all)
	for f.augment(f.hi) {
	}
	for f.augment(f.lo) {
	}
	return f.owner
}

// cheapest returns the member with the least cost for shard s, the lowest
// index among equals.
func (f *flow) cheapest(s int) int {
	row := f.cost[s*f.n : (s+1)*f.n]
	b := 0
	for i, c := range row {
		if c < row[b] {
			b = i
		}
	}
	return b
}

// edges recomputes the cheapest move j→k for every j marked in rows.
func (f *flow) edges(rows []bool) {
	for j, r := range rows {
		if r {
			for k := range f.n {
				f.w[j*f.n+k], f.arg[j*f.n+k] = math.Inf(1), -1
			}
		}
	}
	for s, j := range f.owner {
		if !rows[j] {
			continue
		}
		row := f.cost[s*f.n : (s+1)*f.n]
		for k, c := range row {
			if d := c - row[j]; k != j && d < f.w[j*f.n+k] {
				f.w[j*f.n+k], f.arg[j*f.n+k] = d, s
			}
		}
	}
}

// augment moves one shard along the cheapest chain from a member over
// limit to one under it, and reports whether there was one to move.
func (f *flow) augment(limit []int) bool {
	dist, prev, sink := f.dijkstra(limit)
	if sink < 0 {
		return false
	}
	for v := range f.n {
		f.pot[v] += min(dist[v], dist[sink])
	}
	touched := make([]bool, f.n)
	for k := sink; prev[k] >= 0; k = prev[k] {
		j := prev[k]
		s := f.arg[j*f.n+k]
		f.owner[s] = k
		touched[j], touched[k] = true, true
	}
	for k := sink; ; k = prev[k] {
		if prev[k] < 0 {
			f.load[k]--
			break
		}
	}
	f.load[sink]++
	f.edges(touched)
	return true
}

// dijkstra returns the reduced distances from the members over limit, each
// node's predecessor (-1 for a start), and the nearest member under limit,
// or -1 if there is none to move. Ties go to the lowest index.
func (f *flow) dijkstra(limit []int) (dist []float64, prev []int, sink int) {
	dist, prev = make([]float64, f.n), make([]int, f.n)
	done := make([]bool, f.n)
	top := math.Inf(-1)
	for v := range f.n {
		if f.load[v] > limit[v] {
			top = max(top, f.pot[v])
		}
	}
	if math.IsInf(top, -1) {
		return nil, nil, -1
	}
	for v := range f.n {
		dist[v], prev[v] = math.Inf(1), -1
		if f.load[v] > limit[v] {
			dist[v] = top - f.pot[v]
		}
	}
	for {
		u := -1
		for v := range f.n {
			if !done[v] && (u < 0 || dist[v] < dist[u]) {
				u = v
			}
		}
		if u < 0 || math.IsInf(dist[u], 1) {
			return nil, nil, -1 // no member under limit
		}
		if f.load[u] < limit[u] {
			return dist, prev, u
		}
		done[u] = true
		for k := range f.n {
			d := dist[u] + f.w[u*f.n+k] + f.pot[u] - f.pot[k]
			if !done[k] && d < dist[k] {
				dist[k], prev[k] = d, u
			}
		}
	}
}
