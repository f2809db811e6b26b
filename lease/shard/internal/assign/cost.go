package assign

import "math"

// affinityBonus is subtracted from the cost of a (shard, member) pair whose
// member carries the shard's preferred label. It exceeds the whole range of
// the rendezvous cost (about -64..6), so the optimum first satisfies as many
// preferences as balance allows and only then follows the rendezvous.
const affinityBonus = 256

// costs returns the M×N matrix of rendezvous costs, row by shard:
// log2(E/w) with E = -ln(u) exponential, u uniform from a stable hash of
// (group, shard, member ID), less affinityBonus where the member carries
// the shard's preferred label. The smallest cost is the member that
// weighted rendezvous hashing would pick; it is the same on every machine.
func costs(group string, shards int, members []Member, prefer Prefer) []float64 {
	n := len(members)
	g := fnv64a(group, 0xcbf29ce484222325)
	idh := make([]uint64, n)
	logw := make([]float64, n)
	for i, m := range members {
		idh[i] = fnv64a(m.ID, mix64(g))
		logw[i] = log2(float64(max(m.Weight, 1)))
	}
	c := make([]float64, shards*n)
	for s := range shards {
		hs := mix64(g ^ mix64(uint64(s)+0x9e3779b97f4a7c15))
		row := c[s*n : (s+1)*n]
		for i := range row {
			row[i] = logExp(mix64(hs^idh[i])) - logw[i]
		}
		addAffinity(row, members, prefer, s)
	}
	return c
}

// addAffinity lowers the cost of the members that carry shard s's
// preferred label.
func addAffinity(row []float64, members []Member, prefer Prefer, s int) {
	if prefer == nil {
		return
	}
	k, v := prefer(s)
	if k == "" {
		return
	}
	for i, m := range members {
		if got, ok := m.Labels[k]; ok && got == v {
			row[i] -= affinityBonus
		}
	}
}

// logExp returns log2(-log2(u)) for u = (h>>11 + 0.5)/2^53 in (0, 1): the
// log of an exponential variate up to a constant shift, which does not
// change any comparison.
func logExp(h uint64) float64 {
	u := (float64(h>>11) + 0.5) / (1 << 53)
	return log2(-log2(u))
}

// log2 returns the base-2 logarithm of x > 0 to about 1e-8, monotone in x,
// from a table and linear interpolation. It uses only exactly rounded IEEE
// operations (no math.Log, whose last bit may differ between architectures
// or Go versions; the explicit conversion stops Go fusing into an FMA), so
// every member computes the same bits.
func log2(x float64) float64 {
	frac, exp := math.Frexp(x)   // x = frac × 2^exp, frac in [0.5, 1)
	t := (frac*2 - 1) * logSteps // in [0, logSteps)
	i := int(t)
	d := float64((t - float64(i)) * (logTable[i+1] - logTable[i]))
	return float64(exp-1) + logTable[i] + d
}

// logSteps is the number of intervals of the log2 table over [1, 2].
const logSteps = 4096

// logTable[i] is log2(1 + i/logSteps), computed by slowLog2.
var logTable = func() (t [logSteps + 1]float64) {
	for i := range t {
		t[i] = slowLog2(1 + float64(i)/logSteps)
	}
	return t
}()

// slowLog2 returns log2(y) for y in [1, 2] to 2^-40 by repeated squaring,
// with exactly rounded operations only.
func slowLog2(y float64) float64 {
	r, bit := 0.0, 0.5
	for range 40 {
		y = y * y
		if y >= 2 {
			y /= 2
			r += bit
		}
		bit /= 2
	}
	return r
}

// fnv64a folds s into the FNV-1a hash h.
func fnv64a(s string, h uint64) uint64 {
	for i := range len(s) {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return h
}

// mix64 is the splitmix64 finalizer: a bijection that spreads every input
// bit over every output bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
