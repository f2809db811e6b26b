// Package stat summarises latency samples.
package stat

import (
	"math"
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
	rank := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(ms)))) - 1
		return ms[max(0, min(i, len(ms)-1))]
	}
	return Summary{N: len(ms), P50: rank(0.5), P99: rank(0.99), Max: ms[len(ms)-1]}
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
