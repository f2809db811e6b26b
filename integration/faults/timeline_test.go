package faults

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leasehold/leasehold/integration/history"
)

// cyclesPerKind is how many cycles of each fault kind a run's picture
// shows: the whole run by default, a stretch of a soak.
const cyclesPerKind = 2

// timeline is what one run's picture shows: a stretch of its history,
// one row per candidate alive in it.
type timeline struct {
	title      string             // the run's name, TTL and shown
	shown      string             // which of the run's cycles the stretch covers
	from, to   history.Time       // the stretch shown
	origin     history.Time       // x = 0: the run's first event
	rows       []string           // candidates alive in the stretch, by number
	lives      []span             // each row's process, alive (label: candidate)
	bars       []history.Interval // leaderships overlapping the stretch
	faults     []span             // from Fault to Heal (label: the fault's kind)
	crashes    []mark             // label: candidate
	violations []mark             // label: the check's letter
}

// span is a labelled stretch of time.
type span struct {
	label    string
	from, to history.Time
}

// mark is a labelled instant.
type mark struct {
	label string
	at    history.Time
}

// newTimeline picks the stretch of a judged history to draw: the whole run
// if it has at most cyclesPerKind cycles of each of its kinds, else that
// many cycles from the start, or around the first violation if there is
// one. born says when each candidate's process started.
func newTimeline(name string, ttl time.Duration, kinds int, evs []history.Event, rep history.Report, born map[string]history.Time) timeline {
	if len(evs) == 0 {
		return timeline{title: name + ": empty history"}
	}
	tl := timeline{origin: evs[0].At}
	var faults []history.Event
	for _, e := range evs {
		if e.Kind == history.Fault {
			faults = append(faults, e)
		}
	}
	n, k, s := len(faults), cyclesPerKind*max(kinds, 1), 0
	tl.from, tl.to = evs[0].At, evs[len(evs)-1].At
	if n > k {
		if len(rep.Violations) > 0 {
			at := rep.Violations[0].At
			c := max(0, slices.IndexFunc(faults, func(e history.Event) bool { return e.At > at })-1)
			s = min(max(0, c-k/2), n-k)
		}
		if s > 0 {
			tl.from = max(faults[s].At.Add(-ttl), faults[s-1].At)
		}
		tl.to = faults[s+k].At
	} else {
		k = n
	}
	tl.shown = cycleRange(s, k, n)
	tl.title = fmt.Sprintf("%s, TTL %v: %s", name, ttl, tl.shown)
	tl.fill(evs, rep, born)
	if nv := len(rep.Violations); nv > 0 {
		tl.title += fmt.Sprintf("; %d violations, %d shown", nv, len(tl.violations))
	}
	return tl
}

// cycleRange says which of a run's n cycles the stretch shows.
func cycleRange(s, k, n int) string {
	if k == n {
		return fmt.Sprintf("all %d fault cycles", n)
	}
	return fmt.Sprintf("fault cycles %d–%d of %d", s+1, s+k, n)
}

// fill collects what lies in the stretch.
func (tl *timeline) fill(evs []history.Event, rep history.Report, born map[string]history.Time) {
	in := func(at history.Time) bool { return at >= tl.from && at <= tl.to }
	over := func(a, b history.Time) bool { return a <= tl.to && b >= tl.from }
	end, crashed := evs[len(evs)-1].At, map[string]history.Time{}
	born = maps.Clone(born)
	if born == nil {
		born = map[string]history.Time{}
	}
	for i, e := range evs {
		switch {
		case e.Kind == history.Crash:
			crashed[e.Candidate] = e.At
			if in(e.At) {
				tl.crashes = append(tl.crashes, mark{e.Candidate, e.At})
			}
		case e.Kind == history.Fault:
			if h := healAfter(evs[i:], e); over(e.At, h) {
				tl.faults = append(tl.faults, span{e.Fault, e.At, min(h, end)})
			}
		}
	}
	for _, iv := range rep.Leaderships {
		if over(iv.Start, iv.End) {
			tl.bars = append(tl.bars, iv)
			if _, ok := born[iv.Candidate]; !ok {
				born[iv.Candidate] = iv.Start
			}
		}
	}
	for _, v := range rep.Violations {
		if in(v.At) {
			tl.violations = append(tl.violations, mark{strings.SplitN(v.Check, ":", 2)[0], v.At})
		}
	}
	for c, b := range born {
		d, ok := crashed[c]
		if !ok {
			d = end
		}
		if over(b, d) {
			tl.rows = append(tl.rows, c)
			tl.lives = append(tl.lives, span{c, max(b, tl.from), min(d, tl.to)})
		}
	}
	slices.SortFunc(tl.rows, byNumber)
}

// healAfter returns when the fault f (evs[0]) healed, or history.Open.
func healAfter(evs []history.Event, f history.Event) history.Time {
	for _, e := range evs {
		if e.Kind == history.Heal && e.Fault == f.Fault && e.Candidate == f.Candidate {
			return e.At
		}
	}
	return history.Open
}

// byNumber orders candidate ids c1, c2, ..., c10 by their number.
func byNumber(a, b string) int {
	na, errA := strconv.Atoi(strings.TrimPrefix(a, "c"))
	nb, errB := strconv.Atoi(strings.TrimPrefix(b, "c"))
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	return cmp.Compare(na, nb)
}

// sec returns t in seconds since the run's first event.
func (tl *timeline) sec(t history.Time) float64 { return t.Sub(tl.origin).Seconds() }
