package assign

import (
	"fmt"
	"testing"
)

// BenchmarkAssign times Assign for typical and largest groups.
func BenchmarkAssign(b *testing.B) {
	for _, c := range [][2]int{{1024, 10}, {10000, 100}, {65536, 200}} {
		ms := make([]Member, c[1])
		for i := range ms {
			ms[i] = Member{ID: fmt.Sprintf("member-%d", i), Weight: 1}
		}
		b.Run(fmt.Sprintf("M=%d/N=%d", c[0], c[1]), func(b *testing.B) {
			for b.Loop() {
				Assign("group", c[0], ms, nil)
			}
		})
	}
}
