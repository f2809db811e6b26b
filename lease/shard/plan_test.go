package shard

import (
	"maps"
	"slices"
	"testing"
)

// TestDecide: the pure decisions, shard by shard. Owners are given as
// strings, one letter per shard ("." for none).
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name         string
		all, settled string
		have         string // per shard: . idle, c campaigning, h held
		moving       map[int]string
		leaving      bool
		campaign     []int
		cancel, stop []int
		resign       []int
		move         map[int]string
	}{
		{name: "campaign once both agree, held by others or orphans",
			all: "mmmx", settled: "mmxx", have: "....", campaign: []int{0, 1}},
		{name: "no campaign while nobody has settled",
			all: "mm", settled: "..", have: ".."},
		{name: "keep a campaign one assignment still gives me",
			all: "mxx", settled: "xmx", have: "ccc", cancel: []int{2}},
		{name: "no second campaign, none for others' shards",
			all: "mxm", settled: "mxm", have: "c.h"},
		{name: "cancel a campaign no longer mine",
			all: "xm", settled: "xm", have: "cc", cancel: []int{0}},
		{name: "hand over when both assignments agree",
			all: "xy", settled: "xy", have: "hh", move: map[int]string{0: "x", 1: "y"}},
		{name: "no move while the new owner has not settled",
			all: "xy", settled: "mm", have: "hh"},
		{name: "no move while the assignment is unsettled: it would go to another",
			all: "x", settled: "y", have: "h"},
		{name: "no move while nobody has settled",
			all: "x", settled: ".", have: "h"},
		{name: "keep a held shard that is mine",
			all: "m", settled: "x", have: "h"},
		{name: "a handover under way goes on",
			all: "x", settled: "x", have: "h", moving: map[int]string{0: "x"}},
		{name: "stop a handover whose target changed, or no longer agreed",
			all: "yx", settled: "yy", have: "hh", moving: map[int]string{0: "x", 1: "x"}, stop: []int{0, 1}},
		{name: "leaving: hand over without settling, cancel campaigns",
			all: "xy.", settled: "...", have: "hhc", leaving: true, move: map[int]string{0: "x", 1: "y"}, cancel: []int{2}},
		{name: "leaving with nobody to hand to: resign",
			all: "..", settled: "..", have: "hh", leaving: true, moving: map[int]string{1: "x"}, resign: []int{0}, stop: []int{1}},
		{name: "leaving: campaign for nothing",
			all: "mm", settled: "mm", have: "..", leaving: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := view{me: "m", leaving: c.leaving, owners: owners{letters(c.all), letters(c.settled)},
				have: phases(c.have), moving: c.moving}
			p := decide(v)
			check := func(what string, got, want []int) {
				if !slices.Equal(got, want) {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("campaign", p.campaign, c.campaign)
			check("cancel", p.cancel, c.cancel)
			check("stop", p.stop, c.stop)
			check("resign", p.resign, c.resign)
			if c.move == nil {
				c.move = map[int]string{}
			}
			if !maps.Equal(p.move, c.move) {
				t.Errorf("move = %v, want %v", p.move, c.move)
			}
		})
	}
}

func letters(s string) []string {
	out := make([]string, len(s))
	for i, r := range s {
		if r != '.' {
			out[i] = string(r)
		}
	}
	return out
}

func phases(s string) []phase {
	out := make([]phase, len(s))
	for i, r := range s {
		out[i] = map[rune]phase{'.': idle, 'c': campaigning, 'h': held}[r]
	}
	return out
}
