package main

import (
	"flag"
	"fmt"
	"maps"
	"strings"

	"github.com/leasehold/leasehold/lease"
)

// policy holds run's candidacy flags (lease.Options' election policies).
// Commands that do not register them leave it zero: the defaults.
type policy struct {
	priority int
	noLead   bool
	preempt  bool
	labels   labels
	// follow makes a leader follow the candidate list, so that
	// leasehold handover reaches it; register sets it.
	follow bool
}

// register adds the policy flags to fs, and makes the leader follow the
// candidate list: a run holds one election, so it pays one watch for it.
func (p *policy) register(fs *flag.FlagSet) {
	p.follow = true
	fs.IntVar(&p.priority, "priority", 0, "candidate priority: a higher one leads first and, with --preempt, takes over from a lower one (lease.Options.Priority)")
	fs.BoolVar(&p.noLead, "no-lead", false, "be listed as a candidate and watch, but never lead (lease.Options.NoLead)")
	fs.BoolVar(&p.preempt, "preempt", false, "while leading, hand over to a candidate of strictly higher priority once it has waited a TTL (lease.Options.Preempt)")
	fs.Var(&p.labels, "label", "key=value published in this candidate's record, e.g. --label addr=10.0.0.7:8080; repeatable (lease.Options.Labels)")
}

// apply sets o's policy fields. roster says whether the store keeps
// candidate lists (backends.Roster); without one, a leader has none to
// follow.
func (p *policy) apply(o *lease.Options, roster bool) {
	o.FollowRoster = p.follow && roster
	o.Priority = p.priority
	o.NoLead = p.noLead
	o.Preempt = p.preempt
	if len(p.labels) > 0 {
		o.Labels = maps.Clone(p.labels)
	}
}

// labels is the value of the repeatable --label flag.
type labels map[string]string

// Set adds one key=value; the flag package names the flag in its error.
func (l *labels) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	switch {
	case !ok:
		return fmt.Errorf("want key=value")
	case k == "":
		return fmt.Errorf("empty key: want key=value")
	}
	if _, dup := (*l)[k]; dup {
		return fmt.Errorf("key %q given twice", k)
	}
	if *l == nil {
		*l = labels{}
	}
	(*l)[k] = v
	return nil
}

// String returns the labels as k=v,... in key order.
func (l *labels) String() string {
	if l == nil || len(*l) == 0 {
		return ""
	}
	return formatLabels(*l)
}
