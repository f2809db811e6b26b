package assign

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// algorithm is an assignment function with Assign's contract.
type algorithm func(group string, shards int, members []Member, prefer Prefer) []int

// candidates are the algorithms the comparison runs: Assign and the ones
// it was chosen over, all on the same rendezvous costs.
var candidates = []struct {
	name string
	fn   algorithm
}{
	{"transport (Assign)", Assign},
	{"fixed-order greedy", sorted(fixedOrder)},
	{"global greedy", sorted(globalGreedy)},
	{"maglev fill", sorted(maglev)},
}

// sorted runs fn on the members in ID order and maps the owners back.
func sorted(fn func(c []float64, q []int, shards int) []int) algorithm {
	return func(group string, shards int, members []Member, prefer Prefer) []int {
		order := byID(members)
		ms := make([]Member, len(members))
		for k, i := range order {
			ms[k] = members[i]
		}
		owner := fn(costs(group, shards, ms, prefer), Quotas(shards, ms), shards)
		for s, k := range owner {
			owner[s] = order[k]
		}
		return owner
	}
}

// fixedOrder gives shards 0, 1, … in turn to their cheapest member with
// room left (the first implementation).
func fixedOrder(c []float64, q []int, shards int) []int {
	n, owner, load := len(q), make([]int, shards), make([]int, len(q))
	for s := range shards {
		row := c[s*n : (s+1)*n]
		b := -1
		for i := range n {
			if load[i] < q[i] && (b < 0 || row[i] < row[b]) {
				b = i
			}
		}
		owner[s], load[b] = b, load[b]+1
	}
	return owner
}

// globalGreedy takes all (shard, member) pairs cheapest first and assigns
// each whose shard is free and whose member has room.
func globalGreedy(c []float64, q []int, shards int) []int {
	n, owner, load := len(q), make([]int, shards), make([]int, len(q))
	pairs := make([]int, len(c))
	for p := range pairs {
		pairs[p] = p
	}
	slices.SortFunc(pairs, func(a, b int) int { return cmpCost(c, a, b) })
	for s := range owner {
		owner[s] = -1
	}
	for _, p := range pairs {
		s, i := p/n, p%n
		if owner[s] < 0 && load[i] < q[i] {
			owner[s], load[i] = i, load[i]+1
		}
	}
	return owner
}

// maglev lets the member furthest below its quota (by fraction) take its
// cheapest free shard, until all are taken.
func maglev(c []float64, q []int, shards int) []int {
	n, owner, load := len(q), make([]int, shards), make([]int, len(q))
	pref := make([][]int, n)
	for i := range n {
		pref[i] = make([]int, shards)
		for s := range shards {
			pref[i][s] = s*n + i
		}
		slices.SortFunc(pref[i], func(a, b int) int { return cmpCost(c, a, b) })
	}
	for s := range owner {
		owner[s] = -1
	}
	next := make([]int, n)
	for range shards {
		b := -1
		for i := range n {
			if load[i] < q[i] && (b < 0 || load[i]*q[b] < load[b]*q[i]) {
				b = i
			}
		}
		for owner[pref[b][next[b]]/n] >= 0 {
			next[b]++
		}
		owner[pref[b][next[b]]/n], load[b] = b, load[b]+1
	}
	return owner
}

func cmpCost(c []float64, a, b int) int {
	if c[a] != c[b] {
		if c[a] < c[b] {
			return -1
		}
		return 1
	}
	return a - b
}

// randomMembers returns n members of weight 1 with IDs drawn from seed.
func randomMembers(seed uint64, n int) []Member {
	ms := make([]Member, n)
	for i := range ms {
		ms[i] = Member{ID: fmt.Sprintf("m-%016x", mix64(seed*1000003+uint64(i))), Weight: 1}
	}
	return ms
}

// moves counts the shards whose owner's ID differs between two results.
func moves(a []int, am []Member, b []int, bm []Member) int {
	n := 0
	for s := range a {
		if am[a[s]].ID != bm[b[s]].ID {
			n++
		}
	}
	return n
}

// ratios returns moves/ideal for a join, a leave and a weight change
// (1→2) of one member, from the group of n members drawn from seed.
func ratios(fn algorithm, seed uint64, shards, n int) (join, leave, weight float64) {
	ms := randomMembers(seed, n+1)
	base, grown := ms[:n], ms
	gone := slices.Delete(slices.Clone(base), int(seed)%n, int(seed)%n+1)
	heavy := slices.Clone(base)
	heavy[0].Weight = 2
	a := fn("g", shards, base, nil)
	join = float64(moves(a, base, fn("g", shards, grown, nil), grown)) / (float64(shards) / float64(n+1))
	if n > 1 {
		leave = float64(moves(a, base, fn("g", shards, gone, nil), gone)) / (float64(shards) / float64(n))
	}
	ideal := Quotas(shards, heavy)[0] - Quotas(shards, base)[0]
	if ideal > 0 {
		weight = float64(moves(a, base, fn("g", shards, heavy, nil), heavy)) / float64(ideal)
	}
	return join, leave, weight
}

// stat is a running mean and max.
type stat struct {
	sum, max float64
	n        int
}

func (s *stat) add(x float64) { s.sum, s.max, s.n = s.sum+x, max(s.max, x), s.n+1 }
func (s stat) String() string { return fmt.Sprintf("%.2f/%.2f", s.sum/float64(max(s.n, 1)), s.max) }

// TestCompare prints, per algorithm, M and N, the mean/max over 50 member
// sets of moves/ideal for a join, a leave and a weight change. It is the
// simulation behind the package doc's figures; it runs only with
// ASSIGN_COMPARE=1 (several minutes), or ASSIGN_COMPARE=maglev for the
// candidates whose name contains it: go test -run TestCompare -v.
func TestCompare(t *testing.T) {
	only := os.Getenv("ASSIGN_COMPARE")
	if only == "" {
		t.Skip("set ASSIGN_COMPARE=1 to run the comparison")
	}
	for _, c := range candidates {
		if only != "1" && !strings.Contains(c.name, only) {
			continue
		}
		for _, m := range []int{64, 1024, 10000} {
			for _, n := range []int{2, 3, 5, 10, 30, 100} {
				var j, l, w stat
				for seed := range uint64(50) {
					a, b, c := ratios(c.fn, seed, m, n)
					j.add(a)
					l.add(b)
					w.add(c)
				}
				t.Logf("%-20s M=%-5d N=%-3d join %s leave %s weight %s", c.name, m, n, j, l, w)
			}
		}
	}
}
