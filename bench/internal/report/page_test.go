package report

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/leasehold/leasehold/bench/internal/stat"
)

// pageLimit is docs/benchmarks.md's size limit (internal/docscheck
// enforces it on the committed page too).
const pageLimit = 12 * 1024

// TestCommittedPage renders the page from the committed runs
// (bench/results): at most pageLimit bytes, every question's section
// present, no issue numbers, and byte for byte the committed
// docs/benchmarks.md, so the page says what the runs measured as the code
// renders it now (after a change, regenerate: make bench-doc).
func TestCommittedPage(t *testing.T) {
	runs, err := LoadRuns("../../results")
	if err != nil {
		t.Fatal(err)
	}
	page := Page(PagePlot, runs...)
	if len(page) > pageLimit {
		t.Errorf("page is %d bytes, limit %d", len(page), pageLimit)
	}
	for _, want := range append(sectionTitles(), "# Benchmarks", "## Method", "| run started | commit |", "Machine: ") {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`(?i)\bissues?\b`).FindString(page); m != "" {
		t.Errorf("page says %q: no issue numbers or history on the page", m)
	}
	doc, err := os.ReadFile("../../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != page {
		t.Errorf("docs/benchmarks.md is not the page of bench/results as rendered now: run make bench-doc")
	}
}

func sectionTitles() []string {
	var ts []string
	for _, s := range sections {
		ts = append(ts, "## "+s.title)
	}
	return ts
}

func lat(n int, p50, p99 float64) Latency {
	return Latency{Summary: stat.Summary{N: n, P50: p50, P99: p99, Max: p99 + 1}}
}

// TestPageTables renders made-up runs: each table from the newest run
// that measured it, its figures and ratios, and "Not measured" for a
// question no run answered.
func TestPageTables(t *testing.T) {
	old := &Results{Mode: "full", Started: "2026-01-01T10:00:00Z", Commit: "aaa", Stores: []*Store{{Name: "etcd", TTL: "2s",
		Physical: lat(200, 1, 2),
		Handoff: []Handoff{{Lib: "leasehold", Variant: "settled", Latency: lat(200, 2, 4)},
			{Lib: "native", Peer: "etcd concurrency.Election", Variant: "settled", Latency: lat(200, 2, 5)}},
		Policies: []Policy{{N: 2, Planned: lat(200, 9, 9), Graceful: lat(200, 9, 9), Native: lat(200, 9, 9), RoundTrip: lat(600, 1, 2)}}}}}
	newer := &Results{Mode: "full", Started: "2026-01-02T10:00:00Z", Commit: "bbb", Scenarios: []string{"policies", "shards"}, Stores: []*Store{{Name: "etcd", TTL: "2s",
		Policies: []Policy{{N: 5, Peer: "p", Planned: lat(200, 3, 6), Graceful: lat(200, 2, 4), Native: lat(200, 2, 5), RoundTrip: lat(600, 1, 2), Misses: 1, PlannedReq: 13}},
		Shards:   []ShardGroup{{N: 10, M: 1100, RoundTripMs: 2, ColdSeconds: 3, JoinMoves: 110, JoinBalanceSeconds: 1, JoinMaxUnownedMs: 8, KillSeconds: 3}}}}}
	page := Page("", old, newer)
	for _, want := range []string{
		"| 2026-01-01 10:00 UTC | aaa | full | all |", "| 2026-01-02 10:00 UTC | bbb | full | policies, shards |",
		"| etcd | settled | 200 | 2.00 · 4.00 · 5.00 | 2.00 · 5.00 · 6.00 | 0.80× | 2.00 | 2.00× | – |",
		"| etcd | 5 | 200 | 3.00 · 6.00 · 7.00 | 2.00 · 4.00 · 5.00 | 2.00 · 5.00 · 6.00 | 1.50× | 0.80× | 1.00 | 3.00× | 1 | 13 · 0 · 0 |",
		"| etcd | 2s | 10 | 1100 | 3.00 | 110 (100) | 1.00 | 8.0 (4.00×) | 3.00 (1.50×) |",
		"| etcd | 0.80× · – | – | – | N=5: 0.80× |",
		"## How fast is a crash failover?\n\nNot measured in the runs shown.",
		"Run of 2026-01-02 10:00 UTC.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q; got:\n%s", want, page)
		}
	}
	if strings.Contains(page, "| etcd | 2 | 200 | 9.00") {
		t.Errorf("the older run's planned handovers are on the page:\n%s", page)
	}
}

// TestPageOneRun: a page whose tables all come from one run, of several
// given, does not say before each table which run it shows.
func TestPageOneRun(t *testing.T) {
	empty := &Results{Mode: "quick", Started: "2026-01-01T10:00:00Z", Commit: "aaa", Stores: []*Store{{Name: "etcd", TTL: "2s"}}}
	r := &Results{Mode: "full", Started: "2026-01-02T10:00:00Z", Commit: "bbb", Stores: []*Store{{Name: "etcd", TTL: "2s",
		Physical: lat(200, 1, 2),
		Handoff:  []Handoff{{Lib: "leasehold", Variant: "settled", Latency: lat(200, 2, 4)}}}}}
	page := Page("", empty, r)
	if strings.Contains(page, "Run of ") || !strings.Contains(page, "| etcd | settled | 200 | 2.00 · 4.00 · 5.00") {
		t.Errorf("a page of one run's tables names its run before a table, or lacks the table:\n%s", page)
	}
}

// TestConfidence: a p99 of 200 samples is the 3rd largest; the true p99
// lies between the 6th largest and the largest with 85% probability
// (binomial), above the largest with 13% (0.99^200).
func TestConfidence(t *testing.T) {
	c := confidence(200)
	for _, want := range []string{"the 3rd largest of 200", "between the 6th largest sample and the largest with 85%", "above the largest with 13%"} {
		if !strings.Contains(c, want) {
			t.Errorf("confidence(200) lacks %q: %s", want, c)
		}
	}
}

// TestConfidenceOf: a p99 of 100 samples is the 2nd largest; the true p99
// lies between the 4th largest and the largest with 62% probability,
// above the largest with 37% (0.99^100).
func TestConfidenceOf(t *testing.T) {
	c := confidenceOf("The planned handover's series", 100)
	want := "The planned handover's series have 100 samples: a p99 is the 2nd largest, and the true p99 lies between the 4th largest sample and the largest with 62% probability, above the largest with 37%."
	if !strings.Contains(c, want) {
		t.Errorf("confidenceOf(100) = %q, want %q", c, want)
	}
}

// TestMethodPlannedSamples: the method gives the planned handover's
// series their own confidence when the run shown for them has fewer
// samples than the graceful hand-off's.
func TestMethodPlannedSamples(t *testing.T) {
	h := []Handoff{{Lib: "leasehold", Variant: "settled", Latency: lat(200, 2, 3)}}
	pol := []Policy{{N: 2, Planned: lat(98, 2, 3), Graceful: lat(100, 2, 3), Native: lat(100, 2, 3)}}
	r := &Results{Mode: "full", Started: "2026-01-01T10:00:00Z", Stores: []*Store{{Name: "etcd", Handoff: h, Policies: pol}}}
	if m := method([]*Results{r}); !strings.Contains(m, "The planned handover's series have 100 samples") {
		t.Errorf("method lacks the planned handover's 100 samples:\n%s", m)
	}
	r.Stores[0].Policies = []Policy{{N: 2, Planned: lat(200, 2, 3), Graceful: lat(200, 2, 3), Native: lat(200, 2, 3)}}
	if m := method([]*Results{r}); strings.Contains(m, "The planned handover's series have") {
		t.Errorf("method gives 200 planned samples a sentence of their own:\n%s", m)
	}
}

// TestMethodAtOnce: the method says a store's crash samples and slow-link
// cycles ran at once only when the run shown for them did (it records
// each scenario's time); a run without those times ran them in turn.
func TestMethodAtOnce(t *testing.T) {
	crash := []Crash{{Lib: "leasehold", Latency: lat(10, 2000, 2000)}}
	slow := []SlowLink{{Lib: "leasehold", Cycles: 5}}
	before := &Results{Mode: "full", Started: "2026-01-01T10:00:00Z", Stores: []*Store{{Name: "etcd", Crash: crash, SlowLink: slow}}}
	after := &Results{Mode: "full", Started: "2026-01-02T10:00:00Z", Stores: []*Store{{Name: "etcd", Crash: crash, SlowLink: slow,
		Seconds: map[string]float64{"crash": 5, "slowlink": 9}}}}
	const crashText, slowText = "A store's samples ran at once", "A store's cycles ran at once"
	if m := method([]*Results{before}); strings.Contains(m, crashText) || strings.Contains(m, slowText) || strings.Contains(m, "{") {
		t.Errorf("a run of samples in turn is described as at once, or a placeholder is left:\n%s", m)
	}
	if m := method([]*Results{before, after}); !strings.Contains(m, crashText) || !strings.Contains(m, slowText) {
		t.Errorf("the newer run's samples at once are not described:\n%s", m)
	}
}

// TestMethodTurns: the method says the stores took turns only when the run
// shown for the graceful hand-off did.
func TestMethodTurns(t *testing.T) {
	h := []Handoff{{Lib: "leasehold", Variant: "settled", Latency: lat(200, 2, 3)}}
	before := &Results{Mode: "full", Started: "2026-01-01T10:00:00Z", Stores: []*Store{{Name: "etcd", Handoff: h}}}
	after := &Results{Mode: "full", Started: "2026-01-02T10:00:00Z", Turns: true, Stores: []*Store{{Name: "etcd", Handoff: h}}}
	const says = "take turns on the machine"
	if m := method([]*Results{before}); strings.Contains(m, says) {
		t.Errorf("a run of the stores one after another: method says %q", says)
	}
	if m := method([]*Results{before, after}); !strings.Contains(m, says) {
		t.Errorf("a run that took turns: method lacks %q:\n%s", says, m)
	}
}

// TestHeapCell: a growth renders in bytes; a live heap that shrank across
// the measurement renders as measuring nothing, never as a negative size.
func TestHeapCell(t *testing.T) {
	for in, want := range map[float64]string{2715.4: "2715 B", 0: "0 B", -180080: "– (shrank)"} {
		if got := heapCell(in); got != want {
			t.Errorf("heapCell(%v) = %q, want %q", in, got, want)
		}
	}
}
