package stat

import (
	"math/rand/v2"
	"testing"
)

// TestRatioInterval: a constant ratio gives a point; two draws of one
// distribution give an interval around 1 that the same samples repeat,
// and that is wider for fewer samples.
func TestRatioInterval(t *testing.T) {
	twos, ones := make([]float64, 50), make([]float64, 80)
	for i := range twos {
		twos[i] = 2
	}
	for i := range ones {
		ones[i] = 1
	}
	if lo, hi := RatioInterval(twos, ones, 0.99, 0.9, 500); lo != 2 || hi != 2 {
		t.Errorf("constant 2 over constant 1: [%v, %v]; want [2, 2]", lo, hi)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	draw := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 1 + rng.ExpFloat64()
		}
		return s
	}
	a, b := draw(2000), draw(2000)
	lo, hi := RatioInterval(a, b, 0.99, 0.9, 1000)
	if !(lo < 1 && 1 < hi) {
		t.Errorf("one distribution, 2,000 samples each: [%v, %v]; want 1 inside", lo, hi)
	}
	if lo2, hi2 := RatioInterval(a, b, 0.99, 0.9, 1000); lo2 != lo || hi2 != hi {
		t.Errorf("same samples gave [%v, %v], then [%v, %v]", lo, hi, lo2, hi2)
	}
	slo, shi := RatioInterval(a[:200], b[:200], 0.99, 0.9, 1000)
	if shi-slo <= hi-lo {
		t.Errorf("200 samples: width %v; 2,000: %v; want the first wider", shi-slo, hi-lo)
	}
	if lo, hi := RatioInterval(a, nil, 0.99, 0.9, 100); lo != 0 || hi != 0 {
		t.Errorf("no samples in b: [%v, %v]; want [0, 0]", lo, hi)
	}
}
