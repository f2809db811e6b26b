package history

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Config sets the checker's allowances.
type Config struct {
	// Drift is how far two believed-leadership intervals may overlap
	// (check b): the measurement slack between processes. Zero allows
	// none.
	Drift time.Duration
	// Recovery is how soon after a Heal some candidate must lead (check
	// d): TTL + renew interval + the store's own recovery time.
	Recovery time.Duration
	// FaultRecovery adds, for the Heals of the named faults, the time the
	// store itself needs after such a heal before it serves again (a
	// restarted store cluster); faults not named get Recovery alone.
	FaultRecovery map[string]time.Duration
}

// Check names, as in Violation.Check.
const (
	CheckTokens   = "a: tokens increase"
	CheckOverlap  = "b: no overlap"
	CheckStale    = "c: no stale write accepted"
	CheckRecovery = "d: leader after heal"
	CheckLate     = "e: no write after a successor began"
)

// Violation is one failed check.
type Violation struct {
	Check  string // one of the Check names
	At     Time   // where in the history
	Detail string // what was seen
}

// String renders the violation for a test log.

func (v Violation) String() string { return fmt.Sprintf("[%s] at %d: %s", v.Check, v.At, v.Detail) }

// Interval is one believed leadership: [Start, End). End is where the
// candidate stopped acting or crashed, or Open if the history ends first;
// Paused is when it was paused during the interval, or 0.
type Interval struct {
	Candidate  string // who believed it led
	Token      uint64 // the term's token
	Start, End Time   // from Lead to Unlead or Crash (or Open)
	Paused     Time   // when the candidate was paused, or 0
}

// Open is the End of an interval still open when the history ends.
const Open = Time(math.MaxInt64)

// effEnd is where the interval counts for checks b and d: until the
// candidate stopped, or was paused.
func (iv Interval) effEnd() Time {
	if iv.Paused != 0 && iv.Paused < iv.End {
		return iv.Paused
	}
	return iv.End
}

// FaultStat measures one fault: how long after it began its target
// stopped acting, and how long until a leader with a higher token began.
// A negative duration means it did not happen (or, for Stop, the target
// led nothing at the fault).
type FaultStat struct {
	Fault     string        // the fault's name
	Target    string        // the candidate it was aimed at
	At        Time          // when it began
	Stop      time.Duration // until the target stopped acting
	NewLeader time.Duration // until a higher token's leadership began
}

// Report is what Check found.
type Report struct {
	Violations  []Violation           // every failed check; empty if all passed
	Leaderships []Interval            // in order of Start
	Faults      []FaultStat           // one per Fault event
	Writes      map[string]WriteCount // by guard kind
}

// WriteCount counts the writes one guard kind judged.
type WriteCount struct {
	Accepted, Rejected int
}

// Check runs checks a to e over a history sorted by At (as ReadFiles
// returns it).
func Check(evs []Event, cfg Config) Report {
	r := Report{Leaderships: Intervals(evs), Writes: make(map[string]WriteCount)}
	r.Violations = append(r.Violations, checkTokens(r.Leaderships)...)
	r.Violations = append(r.Violations, checkOverlap(r.Leaderships, cfg.Drift)...)
	r.Violations = append(r.Violations, checkStale(evs)...)
	r.Violations = append(r.Violations, checkRecovery(evs, r.Leaderships, cfg.Recovery, cfg.FaultRecovery)...)
	r.Violations = append(r.Violations, checkLate(evs, r.Leaderships)...)
	r.Faults = faultStats(evs, r.Leaderships)
	for _, e := range evs {
		if e.Kind == Write {
			c := r.Writes[e.Guard]
			if e.Accepted {
				c.Accepted++
			} else {
				c.Rejected++
			}
			r.Writes[e.Guard] = c
		}
	}
	return r
}

// Intervals builds the believed-leadership intervals of a sorted history,
// in order of Start. A Lead while the candidate's previous interval is
// open ends that one there.
func Intervals(evs []Event) []Interval {
	var out []Interval
	open := map[string]int{} // candidate → index in out
	const end = Open
	closeAt := func(c string, at Time) {
		if i, ok := open[c]; ok {
			out[i].End = at
			delete(open, c)
		}
	}
	for _, e := range evs {
		switch e.Kind {
		case Lead:
			closeAt(e.Candidate, e.At)
			open[e.Candidate] = len(out)
			out = append(out, Interval{Candidate: e.Candidate, Token: e.Token, Start: e.At, End: end})
		case Unlead, Crash:
			closeAt(e.Candidate, e.At)
		case Pause:
			if i, ok := open[e.Candidate]; ok && out[i].Paused == 0 {
				out[i].Paused = e.At
			}
		}
	}
	return out
}

func checkTokens(ivs []Interval) []Violation {
	var vs []Violation
	for i := 1; i < len(ivs); i++ {
		if p, c := ivs[i-1], ivs[i]; c.Token <= p.Token {
			vs = append(vs, Violation{CheckTokens, c.Start, fmt.Sprintf(
				"%s led with token %d after %s led with token %d", c.Candidate, c.Token, p.Candidate, p.Token)})
		}
	}
	return vs
}

func checkOverlap(ivs []Interval, drift time.Duration) []Violation {
	var vs []Violation
	for i, a := range ivs {
		for _, b := range ivs[i+1:] {
			if b.Start >= a.effEnd() {
				break // later ones start later still
			}
			if over := a.effEnd().Sub(b.Start); over > drift {
				vs = append(vs, Violation{CheckOverlap, b.Start, fmt.Sprintf(
					"%s (token %d) still acted %v after %s (token %d) began to lead; allowance %v",
					a.Candidate, a.Token, over, b.Candidate, b.Token, drift)})
			}
		}
	}
	return vs
}

// checkStale flags accepted writes that a correct guard must have refused:
// a fenced write sent after the fence accepted a higher token, a store
// write sent after a higher token's leadership began.
func checkStale(evs []Event) []Violation {
	var vs []Violation
	var fenceHigh, leadHigh uint64 // highest seen so far, by time
	type pending struct {
		at    Time
		token uint64
	}
	var fenceAcc []pending // accepted fenced writes, by answer time
	for _, e := range evs {
		if e.Kind == Write && e.Guard == GuardFence && e.Accepted {
			fenceAcc = append(fenceAcc, pending{e.At, e.Token})
		}
	}
	slices.SortFunc(fenceAcc, func(a, b pending) int { return cmp.Compare(a.at, b.at) })
	writes := make([]Event, 0, len(evs))
	for _, e := range evs {
		if e.Kind == Write {
			writes = append(writes, e)
		}
	}
	slices.SortStableFunc(writes, func(a, b Event) int { return cmp.Compare(a.Sent, b.Sent) })
	leads := leadsByTime(evs)
	fi, li := 0, 0
	for _, w := range writes {
		for ; fi < len(fenceAcc) && fenceAcc[fi].at < w.Sent; fi++ {
			fenceHigh = max(fenceHigh, fenceAcc[fi].token)
		}
		for ; li < len(leads) && leads[li].At < w.Sent; li++ {
			leadHigh = max(leadHigh, leads[li].Token)
		}
		high := leadHigh
		if w.Guard == GuardFence {
			high = fenceHigh
		}
		if w.Accepted && w.Token < high {
			vs = append(vs, Violation{CheckStale, w.Sent, fmt.Sprintf(
				"%s guard accepted %s's write with token %d sent when token %d was known", w.Guard, w.Candidate, w.Token, high)})
		}
	}
	return vs
}

// checkLate flags the writes a candidate sent while it believed it led
// (from its Lead up to its Unlead, paused or not) with a token lower than
// that of a leadership that had already begun: its check before the write
// said yes after a successor began. Writes after the Unlead (a deliberate
// straggle) are check c's business, not this one's.
func checkLate(evs []Event, ivs []Interval) []Violation {
	type term struct {
		candidate string
		token     uint64
	}
	span := map[term]Interval{}
	for _, iv := range ivs {
		span[term{iv.Candidate, iv.Token}] = iv
	}
	var writes []Event
	for _, e := range evs {
		if iv, ok := span[term{e.Candidate, e.Token}]; ok && e.Kind == Write && e.Sent >= iv.Start && e.Sent < iv.End {
			writes = append(writes, e)
		}
	}
	slices.SortStableFunc(writes, func(a, b Event) int { return cmp.Compare(a.Sent, b.Sent) })
	var vs []Violation
	leads, li := leadsByTime(evs), 0
	var high Event // the highest-token Lead begun so far
	for _, w := range writes {
		for ; li < len(leads) && leads[li].At < w.Sent; li++ {
			if leads[li].Token > high.Token {
				high = leads[li]
			}
		}
		if high.Token > w.Token {
			vs = append(vs, Violation{CheckLate, w.Sent, fmt.Sprintf(
				"%s wrote with token %d %v after %s began to lead with token %d",
				w.Candidate, w.Token, w.Sent.Sub(high.At), high.Candidate, high.Token)})
		}
	}
	return vs
}

func leadsByTime(evs []Event) []Event {
	var out []Event
	for _, e := range evs {
		if e.Kind == Lead {
			out = append(out, e)
		}
	}
	return out
}

// checkRecovery requires a leadership that covers some instant of
// [heal, heal + bound (+ extra[fault])] after each Heal.
func checkRecovery(evs []Event, ivs []Interval, base time.Duration, extra map[string]time.Duration) []Violation {
	var vs []Violation
	for _, e := range evs {
		if e.Kind != Heal {
			continue
		}
		bound := base + extra[e.Fault]
		limit := e.At.Add(bound)
		if !slices.ContainsFunc(ivs, func(iv Interval) bool { return iv.Start <= limit && iv.effEnd() > e.At }) {
			vs = append(vs, Violation{CheckRecovery, e.At, fmt.Sprintf(
				"no leader within %v after %s healed", bound, e.Fault)})
		}
	}
	return vs
}

// faultStats measures each Fault against its target's leadership: the
// target's interval open at the fault, or begun before the fault healed
// (an observer can see the key a moment before its holder records Lead).
// What happens only after the next fault began is not counted.
func faultStats(evs []Event, ivs []Interval) []FaultStat {
	var out []FaultStat
	for i, e := range evs {
		if e.Kind != Fault {
			continue
		}
		st := FaultStat{Fault: e.Fault, Target: e.Candidate, At: e.At, Stop: -1, NewLeader: -1}
		healed, next := healTime(evs[i:], e), nextFault(evs[i+1:])
		var token uint64
		for _, iv := range ivs {
			if iv.Candidate == e.Candidate && iv.Start < healed && iv.End > e.At {
				token = iv.Token
				if iv.End < next {
					st.Stop = max(0, iv.End.Sub(e.At))
				}
				break
			}
		}
		for _, iv := range ivs {
			if token != 0 && iv.Token > token && iv.Start >= e.At && iv.Start < next {
				st.NewLeader = iv.Start.Sub(e.At)
				break
			}
		}
		out = append(out, st)
	}
	return out
}

// nextFault returns when the first Fault of evs began, or Open.
func nextFault(evs []Event) Time {
	for _, e := range evs {
		if e.Kind == Fault {
			return e.At
		}
	}
	return Open
}

// healTime returns when the fault f (evs[0]) healed, or Open.
func healTime(evs []Event, f Event) Time {
	for _, e := range evs {
		if e.Kind == Heal && e.Fault == f.Fault && e.Candidate == f.Candidate {
			return e.At
		}
	}
	return Open
}
