package report

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// section is one question of the page and the table that answers it.
type section struct {
	// title is the question, as the section's heading.
	title string
	// write renders the table from runs and returns the runs it drew
	// on; none: it wrote nothing.
	write func(b *strings.Builder, runs []*Results) []*Results
}

// sections are the page's questions, in order.
var sections = []section{
	{"How fast is a graceful hand-off?", handoffSection},
	{"How fast is a crash failover?", crashSection},
	{"How fast is a planned handover?", plannedSection},
	{"How many elections fit on one process?", shardedSection},
	{"What does it cost at rest?", idleSection},
	{"How does the herd scale?", herdSection},
	{"How do shards move?", shardsSection},
	{"Does a slow link cost the leader its leadership?", slowLinkSection},
	{"How does each compare with the native client?", compareSection},
}

// Page renders docs/benchmarks.md whole from runs (LoadRuns): a header
// naming the runs shown (date, commit, machine), the hand-off plot pic (a
// path relative to the page; "" for none), the method, and one table per
// question, each from the newest run that measured it. A question no run
// measured says so. Nothing on the page is written by hand.
func Page(pic string, runs ...*Results) string {
	var body strings.Builder
	var used []*Results
	for _, s := range sections {
		fmt.Fprintf(&body, "\n## %s\n\n", s.title)
		var sb strings.Builder
		from := s.write(&sb, runs)
		if len(from) == 0 {
			body.WriteString("Not measured in the runs shown.\n")
			continue
		}
		body.WriteString(sb.String())
		for _, r := range from {
			if !slices.Contains(used, r) {
				used = append(used, r)
			}
		}
	}
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("Generated from the runs in `bench/results/` by `make bench` (or `make bench-doc` from the same\nruns); nothing here is written by hand.\n\n")
	header(&b, runs, used)
	if pic != "" && pick(runs, "handoff", hasHandoff) != nil {
		fmt.Fprintf(&b, "\n![Graceful hand-off latency](%s)\n", pic)
	}
	b.WriteString(method(runs))
	b.WriteString(oneRun(body.String(), used))
	runErrors(&b, used)
	return b.String()
}

// header lists the runs the tables draw on, in the order given.
func header(b *strings.Builder, runs, used []*Results) {
	b.WriteString("| run started | commit | mode | scenarios | wall time |\n|---|---|---|---|---|\n")
	var machines []string
	for _, r := range runs {
		if !slices.Contains(used, r) {
			continue
		}
		commit := r.Commit
		if commit == "" {
			commit = "not recorded"
		}
		scen := "all"
		if len(r.Scenarios) > 0 {
			scen = strings.Join(r.Scenarios, ", ")
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %.0f s |\n", when(r.Started), commit, r.Mode, scen, r.WallSeconds)
		if r.Machine != "" && !slices.Contains(machines, r.Machine) {
			machines = append(machines, r.Machine)
		}
	}
	for _, m := range machines {
		fmt.Fprintf(b, "\nMachine: %s.\n", m)
	}
}

// when renders an RFC 3339 time as its UTC date and minute.
func when(rfc3339 string) string {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		return rfc3339
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// oneRun drops from body the lines that say which run a table shows
// (see from) if every table shows the same one, which the header names.
func oneRun(body string, used []*Results) string {
	if len(used) != 1 {
		return body
	}
	return strings.ReplaceAll(body, fmt.Sprintf("Run of %s.\n\n", when(used[0].Started)), "")
}

// from says which run a table shows, when the runs given are several.
func from(b *strings.Builder, runs []*Results, r *Results) {
	n := 0
	for _, x := range runs {
		if len(x.Stores) > 0 {
			n++
		}
	}
	if n > 1 {
		fmt.Fprintf(b, "Run of %s.\n\n", when(r.Started))
	}
}

// runErrors lists the scenarios that failed in the runs shown, if any.
func runErrors(b *strings.Builder, used []*Results) {
	head := "\n## Scenarios that failed\n\n"
	for _, r := range used {
		for _, s := range r.Stores {
			for _, e := range s.Errors {
				fmt.Fprintf(b, "%s- %s, %s: %s\n", head, when(r.Started), s.Name, e)
				head = ""
			}
		}
	}
}
