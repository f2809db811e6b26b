package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/scenario"
)

// TestTrace traces BENCH_TRACE planned handovers and as many graceful
// hand-offs of leasehold with 2 waiters on each store (BENCH_STORES), and
// writes every hand-off's store calls to BENCH_OUT/trace-<store>.txt, with
// a summary of the calls per hand-off first: where a hand-off's round
// trips go. It measures nothing the benchmark reports.
func TestTrace(t *testing.T) {
	k, _ := strconv.Atoi(os.Getenv("BENCH_TRACE"))
	if k <= 0 {
		t.Skip("BENCH_TRACE (hand-offs per series) not set")
	}
	cfg := loadConfig()
	out := os.Getenv("BENCH_OUT")
	if out == "" {
		out = t.TempDir()
	}
	for _, kind := range cfg.stores {
		st := startStore(t, kind)
		tls, err := scenario.TraceHandoffs(st, 2, k, cand.Opts{TTL: ttls[kind]})
		if err != nil {
			t.Errorf("%s: %v", kind, err)
		}
		var b strings.Builder
		b.WriteString(traceSummary(tls))
		for _, tl := range tls {
			b.WriteString("\n" + tl.String())
		}
		path := filepath.Join(out, "trace-"+string(kind)+".txt")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d hand-offs traced in %s\n%s", kind, len(tls), path, traceSummary(tls))
	}
}

// traceSummary returns, per series, the median latency and, per call
// (role and operation), how many a hand-off makes and their median
// duration and start.
func traceSummary(tls []scenario.Timeline) string {
	var b strings.Builder
	for _, series := range []string{"planned", "graceful"} {
		var lat []time.Duration
		count := map[string]int{}
		dur, start := map[string][]time.Duration{}, map[string][]time.Duration{}
		for _, tl := range tls {
			if tl.Series != series {
				continue
			}
			lat = append(lat, tl.Latency)
			t0 := tl.Events[0].Start
			for _, e := range tl.Events[1:] {
				key := e.Who + " " + e.Op
				count[key]++
				dur[key] = append(dur[key], e.End.Sub(e.Start))
				start[key] = append(start[key], e.Start.Sub(t0))
			}
		}
		if len(lat) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s: %d hand-offs, median %.2f ms\n  %-50s %8s %12s %12s\n", series, len(lat), msOf(median(lat)), "call", "per h-o", "median ms", "starts at")
		keys := make([]string, 0, len(count))
		for key := range count {
			keys = append(keys, key)
		}
		sort.Slice(keys, func(i, j int) bool { return median(start[keys[i]]) < median(start[keys[j]]) })
		for _, key := range keys {
			fmt.Fprintf(&b, "  %-50s %8.2f %12.2f %+12.2f\n", key, float64(count[key])/float64(len(lat)), msOf(median(dur[key])), msOf(median(start[key])))
		}
	}
	return b.String()
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
