package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/leasehold/leasehold/lease"
)

// TestPrintCandidates: status prints each candidate's state in words, a
// damped or superseded one with its base state, and says the same in
// JSON.
func TestPrintCandidates(t *testing.T) {
	cs := []lease.Candidate{
		{Identity: "a", Leader: true, MayLead: true},
		{Identity: "b", MayLead: true},
		{Identity: "c", MayLead: true, Damped: true},
		{Identity: "b", MayLead: true, Superseded: true},
		{Identity: "audit"},
		{Identity: "ops", Requester: true, Request: "b"},
	}
	want := []string{"leader", "waiting", "waiting,damped", "waiting,superseded", "no-lead", "handover-request:b"}
	var buf bytes.Buffer
	printCandidates(&buf, "jobs/e", cs)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(cs)+2 {
		t.Fatalf("printed %d lines, want %d:\n%s", len(lines), len(cs)+2, buf.String())
	}
	for i, w := range want {
		if f := strings.Fields(lines[i+2]); len(f) < 4 || f[3] != w {
			t.Errorf("row %d: %q, want state %q", i+1, lines[i+2], w)
		}
	}
	b, err := json.Marshal(toCandidateJSON(cs))
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		if got[i]["superseded"] != c.Superseded || got[i]["damped"] != c.Damped {
			t.Errorf("JSON %d: %v, want superseded %v and damped %v", i, got[i], c.Superseded, c.Damped)
		}
	}
}
