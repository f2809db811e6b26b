package history

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestRecordAndMerge: two recorders' files merge into one timeline in
// order of At, and a line cut short at the end of a file is ignored.
func TestRecordAndMerge(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	ra, err := Create(a, "a")
	if err != nil {
		t.Fatal(err)
	}
	rb, err := Create(b, "b")
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{
		func() error { return ra.Record(Event{Kind: Lead, Token: 3}) },
		func() error { return rb.Record(Event{Kind: Write, Token: 3, Guard: GuardFence, Sent: Now()}) },
		func() error { return ra.Record(Event{Kind: Unlead, Token: 3}) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	ra.Close()
	rb.Close()
	f, err := os.OpenFile(b, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"lead","at":`) // killed mid-write
	f.Close()
	evs, err := ReadFiles(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, e := range evs {
		got = append(got, e.Candidate+":"+string(e.Kind))
		if i > 0 && e.At < evs[i-1].At {
			t.Fatalf("events out of order: %+v", evs)
		}
	}
	if want := []string{"a:lead", "b:write", "a:unlead"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
}

func TestReadRejectsGarbage(t *testing.T) {
	if _, err := Read(strings.NewReader("{\"kind\":\"lead\"}\nnot json\n")); err == nil {
		t.Fatal("Read accepted a bad line in the middle of a history")
	}
}

// TestNowIsMonotonic: Now does not go backwards and follows Go's clock.
func TestNowIsMonotonic(t *testing.T) {
	prev := Now()
	for range 1000 {
		n := Now()
		if n < prev {
			t.Fatalf("Now went back from %d to %d", prev, n)
		}
		prev = n
	}
}
