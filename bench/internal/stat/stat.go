// Package stat summarises latency samples.
package stat

import (
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// Summary describes a set of latency samples, in milliseconds.
type Summary struct {
	// N is the number of samples.
	N int `json:"n"`
	// P50 is the median, in milliseconds.
	P50 float64 `json:"p50_ms"`
	// P99 is the 99th percentile (nearest rank), in milliseconds.
	P99 float64 `json:"p99_ms"`
	// Max is the largest sample, in milliseconds.
	Max float64 `json:"max_ms"`
}

// Summarize returns the summary of samples.
func Summarize(samples []time.Duration) Summary {
	if len(samples) == 0 {
		return Summary{}
	}
	ms := Millis(samples)
	sort.Float64s(ms)
	return Summary{N: len(ms), P50: rankOf(ms, 0.5), P99: rankOf(ms, 0.99), Max: ms[len(ms)-1]}
}

// Millis converts durations to milliseconds.
func Millis(d []time.Duration) []float64 {
	ms := make([]float64, len(d))
	for i, v := range d {
		ms[i] = float64(v) / float64(time.Millisecond)
	}
	return ms
}

// Ratio returns a/b, or 0 when b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// RatioInterval returns a bootstrap interval of rank p's ratio between
// samples a and b (milliseconds): rounds times, each series is drawn
// again with replacement, and the ratio of the draws' rank p taken; lo and
// hi are those ratios' (1-level)/2 and (1+level)/2 quantiles. It is how
// far one run places the ratio: two series of 200 whose p99 is the 2nd
// largest sample can put it anywhere in a wide range. The draws use a
// fixed seed, so the same samples give the same interval. Either series
// empty, or a rank of 0 in b, gives 0, 0.
func RatioInterval(a, b []float64, p, level float64, rounds int) (lo, hi float64) {
	if len(a) == 0 || len(b) == 0 || rounds <= 0 {
		return 0, 0
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ratios := make([]float64, 0, rounds)
	da, db := make([]float64, len(a)), make([]float64, len(b))
	for range rounds {
		den := rankOf(redraw(rng, b, db), p)
		if den == 0 {
			return 0, 0
		}
		ratios = append(ratios, rankOf(redraw(rng, a, da), p)/den)
	}
	sort.Float64s(ratios)
	return rankOf(ratios, (1-level)/2), rankOf(ratios, (1+level)/2)
}

// redraw fills into with len(into) samples of from, drawn with
// replacement, and returns it sorted.
func redraw(rng *rand.Rand, from, into []float64) []float64 {
	for i := range into {
		into[i] = from[rng.IntN(len(from))]
	}
	sort.Float64s(into)
	return into
}

// rankOf returns the nearest-rank p quantile of sorted ms (as Summarize).
func rankOf(ms []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(ms)))) - 1
	return ms[max(0, min(i, len(ms)-1))]
}
