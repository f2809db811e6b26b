package lease_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
)

// TestWithLabels: a campaign's WithLabels are merged over Options.Labels
// in its own candidate record, as Candidates lists it, and in its
// proclaimed value; the elector's other campaigns keep Options.Labels;
// labels that break the rules fail at once, naming WithLabels.
func TestWithLabels(t *testing.T) {
	store, stop := newStore()
	defer stop()
	e, err := lease.New(store, lease.Options{TTL: 2 * time.Second, Identity: "w1",
		Labels: map[string]string{"zone": "a", "version": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	l, err := e.Campaign(ctx, "labelled", lease.WithLabels(map[string]string{"zone": "b", "shard.weight": "3"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Campaign(ctx, "plain"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"zone": "b", "version": "1", "shard.weight": "3"}
	awaitLabels(t, ctx, e, "labelled", want)
	awaitLabels(t, ctx, e, "plain", map[string]string{"zone": "a", "version": "1"})

	if err := l.Proclaim(ctx, "v"); err != nil {
		t.Fatal(err)
	}
	info, err := e.Leader(ctx, "labelled")
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(info.Labels, want) {
		t.Errorf("proclaimed labels %v, want %v", info.Labels, want)
	}

	many := map[string]string{}
	for _, k := range strings.Fields("a b c d e f g") {
		many[k] = "x"
	}
	for name, labels := range map[string]map[string]string{
		"too many":  many, // 7 + the elector's 2 > MaxLabels
		"bad key":   {"no spaces": "x"},
		"too large": {"big": strings.Repeat("x", lease.MaxLabelValue+1)},
	} {
		_, err := e.Campaign(ctx, "refused", lease.WithLabels(labels))
		if !errors.Is(err, lease.ErrInvalidOption) || !strings.Contains(err.Error(), "WithLabels") {
			t.Errorf("%s: Campaign = %v, want ErrInvalidOption naming WithLabels", name, err)
		}
	}
}

// awaitLabels waits until election's only candidate record carries want.
func awaitLabels(t *testing.T, ctx context.Context, e *lease.LeaseElector, election string, want map[string]string) {
	t.Helper()
	ch, err := e.ObserveCandidates(ctx, election)
	if err != nil {
		t.Fatal(err)
	}
	var last []lease.Candidate
	for cs := range ch {
		if len(cs) == 1 && maps.Equal(cs[0].Labels, want) {
			return
		}
		last = cs
	}
	t.Fatalf("%q: candidates %+v, want one with labels %v", election, last, want)
}
