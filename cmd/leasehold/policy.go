package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/leasehold/leasehold/lease"
)

// policy holds run's candidacy flags (lease.Options' election policies).
// Commands that do not register them leave it zero: the defaults.
type policy struct {
	priority int
	noLead   bool
	preempt  bool
	labels   labels
	// preemptAfter and damping are lease.Options.PreemptAfter and
	// Damping; zero fields take the lease defaults.
	preemptAfter time.Duration
	damping      lease.Damping
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
	fs.BoolVar(&p.preempt, "preempt", false, "while leading, hand over to a candidate of strictly higher priority once it has waited --preempt-after (lease.Options.Preempt)")
	fs.Var(&p.labels, "label", "key=value published in this candidate's record, e.g. --label addr=10.0.0.7:8080; repeatable (lease.Options.Labels)")
	fs.DurationVar(&p.preemptAfter, "preempt-after", 0, "with --preempt, how long a higher priority must have waited before the leader hands over (default TTL) (lease.Options.PreemptAfter)")
	fs.IntVar(&p.damping.Losses, "damp", 0, "flap damping: after this many losses within --damp-window, sit out --damp-penalty, doubled on each further flap up to --damp-cap; 0 is off (lease.Options.Damping)")
	fs.DurationVar(&p.damping.Window, "damp-window", 0, "how far back --damp counts losses (default 10×TTL)")
	fs.DurationVar(&p.damping.Penalty, "damp-penalty", 0, "how long a candidate damped by --damp first sits out (default TTL)")
	fs.DurationVar(&p.damping.Cap, "damp-cap", 0, "bound of the doubled --damp-penalty (default 8×TTL)")
}

// check refuses flags that would do nothing: a setting of preemption or
// damping without the flag that turns it on. The rest, --no-lead with
// --preempt or --damp included, is lease.Options.Validate's, checked here
// before any store is contacted; New checks the store's limits later.
func (p *policy) check() error {
	d := p.damping
	switch {
	case p.preemptAfter != 0 && !p.preempt:
		return errors.New("--preempt-after needs --preempt")
	case d.Losses == 0 && (d.Window != 0 || d.Penalty != 0 || d.Cap != 0):
		return errors.New("--damp-window, --damp-penalty and --damp-cap need --damp N (the losses that damp)")
	}
	var o lease.Options
	p.apply(&o)
	if err := o.Validate(); err != nil {
		return fmt.Errorf("--no-lead, --preempt, --preempt-after, --label or --damp*: %w", err)
	}
	return nil
}

// apply sets o's policy fields.
func (p *policy) apply(o *lease.Options) {
	o.FollowRoster = p.follow
	o.Priority = p.priority
	o.NoLead = p.noLead
	o.Preempt = p.preempt
	o.PreemptAfter = p.preemptAfter
	o.Damping = p.damping
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
