package faults

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leasehold/leasehold/integration/history"
)

const ms = history.Time(time.Millisecond)

// synthetic is a small run: a cut hands c1's leadership to c2, a pause
// of c2 lets c3 lead while c2, paused, still believes it leads, and a
// kill of c3 starts c4, which leads with a lower token (a violation of
// check a).
func synthetic() []history.Event {
	ev := func(at history.Time, k history.Kind, c string, tok uint64, f string) history.Event {
		return history.Event{Kind: k, At: at, Candidate: c, Token: tok, Fault: f}
	}
	return []history.Event{
		ev(100*ms, history.Lead, "c1", 5, ""),
		ev(1000*ms, history.Fault, "c1", 0, "cut"),
		ev(2200*ms, history.Unlead, "c1", 5, ""),
		ev(4000*ms, history.Heal, "c1", 0, "cut"),
		ev(3100*ms, history.Lead, "c2", 8, ""),
		ev(6000*ms, history.Fault, "c2", 0, "pause"),
		ev(6001*ms, history.Pause, "c2", 0, ""),
		ev(8000*ms, history.Lead, "c3", 9, ""),
		ev(9000*ms, history.Heal, "c2", 0, "pause"),
		ev(9100*ms, history.Unlead, "c2", 8, ""),
		ev(11000*ms, history.Fault, "c3", 0, "kill"),
		ev(11005*ms, history.Crash, "c3", 0, ""),
		ev(11006*ms, history.Heal, "c3", 0, "kill"),
		ev(13000*ms, history.Lead, "c4", 7, ""),
		ev(14000*ms, history.Unlead, "c4", 7, ""),
	}
}

func born() map[string]history.Time {
	return map[string]history.Time{"c1": 50 * ms, "c2": 60 * ms, "c3": 70 * ms, "c4": 11010 * ms}
}

// TestTimelinePNG draws a small history and checks that the PNG decodes,
// has the size of one panel of four rows, and shows leaderships, a fault
// and the violation in their colours.
func TestTimelinePNG(t *testing.T) {
	evs := synthetic()
	sortByAt(evs)
	rep := history.Check(evs, history.Config{Drift: 10 * time.Millisecond, Recovery: 5 * time.Second})
	if len(rep.Violations) == 0 {
		t.Fatal("the synthetic history should violate check a")
	}
	tl := newTimeline("synthetic", 2*time.Second, 3, evs, rep, born())
	if len(tl.rows) != 4 || len(tl.bars) != 4 || len(tl.faults) != 3 || len(tl.crashes) != 1 || len(tl.violations) == 0 {
		t.Fatalf("timeline %+v: want 4 rows, 4 bars, 3 faults, 1 crash, violations", tl)
	}
	path := filepath.Join(t.TempDir(), "faults.png")
	if err := writeTimeline(path, []timeline{tl}); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, path)
	// 14 in × (150 pt + 4 rows × 30 pt) at 96 dpi.
	if b := img.Bounds(); b.Dx() != 1344 || b.Dy() != 360 {
		t.Fatalf("picture %dx%d, want 1344x360", b.Dx(), b.Dy())
	}
	for name, col := range map[string]color.RGBA{"leadership": leadColor, "paused": pausedColor,
		"violation": violColor, "cut": faultColors["cut"], "pause": faultColors["pause"]} {
		if n := count(img, col); n < 20 {
			t.Errorf("%s colour: %d pixels, want at least 20", name, n)
		}
	}
}

// TestTimelineStretch: a run longer than cyclesPerKind cycles of each
// kind is drawn around its first violation.
func TestTimelineStretch(t *testing.T) {
	var evs []history.Event
	for i := range 20 {
		at := history.Time(i) * 10000 * ms
		evs = append(evs, history.Event{Kind: history.Lead, At: at + 1*ms, Candidate: "c1", Token: uint64(i + 1)},
			history.Event{Kind: history.Fault, At: at + 2000*ms, Candidate: "c1", Fault: "cut"},
			history.Event{Kind: history.Heal, At: at + 5000*ms, Candidate: "c1", Fault: "cut"},
			history.Event{Kind: history.Unlead, At: at + 6000*ms, Candidate: "c1", Token: uint64(i + 1)})
	}
	rep := history.Report{Leaderships: history.Intervals(evs),
		Violations: []history.Violation{{Check: history.CheckStale, At: 150500 * ms}}}
	tl := newTimeline("long", 2*time.Second, 1, evs, rep, nil)
	if tl.title != "long, TTL 2s: fault cycles 14–15 of 20; 1 violations, 1 shown" {
		t.Errorf("title %q", tl.title)
	}
	if tl.from != 130000*ms || tl.to != 152000*ms || len(tl.rows) != 1 {
		t.Errorf("stretch [%d, %d] with rows %v, want [130000ms, 152000ms] with c1", tl.from/ms, tl.to/ms, tl.rows)
	}
}

func sortByAt(evs []history.Event) {
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].At < evs[j-1].At; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return img
}

// count returns how many pixels of img have exactly the colour col.
func count(img image.Image, col color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == col {
				n++
			}
		}
	}
	return n
}
