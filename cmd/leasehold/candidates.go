package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/leasehold/leasehold/lease"
)

// candidates reads election's candidates in succession order. ok is false,
// with a note on stderr and no error, if the store keeps no candidate
// list.
func candidates(ctx context.Context, e *lease.LeaseElector, election string, stderr io.Writer) (cs []lease.Candidate, ok bool, err error) {
	cs, err = e.Candidates(ctx, election)
	if errors.Is(err, errors.ErrUnsupported) {
		fmt.Fprintf(stderr, "leasehold: %s: candidates not shown: %v\n", election, err)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return cs, true, nil
}

// candidateJSON is how status prints a lease.Candidate as JSON.
type candidateJSON struct {
	Identity string            `json:"identity"`
	Session  string            `json:"session"`
	Priority int               `json:"priority"`
	Labels   map[string]string `json:"labels,omitempty"`
	Joined   time.Time         `json:"joined"`
	MayLead  bool              `json:"may_lead"`
	Damped   bool              `json:"damped"`
	// Superseded marks a record of a session its candidate gave up.
	Superseded bool `json:"superseded"`
	Leader     bool `json:"leader"`
	// Requester marks a handover request; Request is its target, empty
	// for the next in line.
	Requester bool   `json:"requester,omitempty"`
	Request   string `json:"request,omitempty"`
}

func toCandidateJSON(cs []lease.Candidate) []candidateJSON {
	out := make([]candidateJSON, 0, len(cs))
	for _, c := range cs {
		out = append(out, candidateJSON{c.Identity, c.Session, c.Priority, c.Labels, c.Joined,
			c.MayLead, c.Damped, c.Superseded, c.Leader, c.Requester, c.Request})
	}
	return out
}

// printCandidates prints cs as a table, in succession order.
func printCandidates(w io.Writer, election string, cs []lease.Candidate) {
	if len(cs) == 0 {
		fmt.Fprintf(w, "%s: no candidates\n", election)
		return
	}
	fmt.Fprintf(w, "%s: candidates in succession order:\n", election)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  #\tIDENTITY\tPRIORITY\tSTATE\tLABELS")
	for i, c := range cs {
		fmt.Fprintf(tw, "  %d\t%s\t%d\t%s\t%s\n", i+1, c.Identity, c.Priority, candidateState(c), formatLabels(c.Labels))
	}
	tw.Flush()
}

// candidateState is a candidate's state in words: leader, waiting,
// no-lead, damped, superseded, or a handover request; several joined by
// commas.
func candidateState(c lease.Candidate) string {
	var s []string
	switch {
	case c.Requester && c.Request == "":
		s = append(s, "handover-request:next")
	case c.Requester:
		s = append(s, "handover-request:"+c.Request)
	case c.Leader:
		s = append(s, "leader")
	case !c.MayLead:
		s = append(s, "no-lead")
	default:
		s = append(s, "waiting")
	}
	if c.Damped {
		s = append(s, "damped")
	}
	if c.Superseded {
		s = append(s, "superseded")
	}
	return strings.Join(s, ",")
}

// formatLabels returns k=v,... in key order, or "-" for none.
func formatLabels(l map[string]string) string {
	if len(l) == 0 {
		return "-"
	}
	kv := make([]string, 0, len(l))
	for _, k := range slices.Sorted(maps.Keys(l)) {
		kv = append(kv, k+"="+l[k])
	}
	return strings.Join(kv, ",")
}
