package lease

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// validatePolicies checks the options of the election policies, defaults
// filled in, as validate does the others.
func (o Options) validatePolicies(set Options, lim backends.Limits) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("lease: %s: %w", fmt.Sprintf(format, args...), ErrInvalidOption)
	}
	d := o.Damping
	switch {
	case o.NoLead && o.Preempt:
		return bad("NoLead with Preempt: a candidate that never leads never hands over; set at most one")
	case o.NoLead && d.Losses != 0:
		return bad("NoLead with Damping.Losses %d: a candidate that never leads never loses, so nothing damps it; set at most one", d.Losses)
	case o.PreemptAfter <= 0:
		return bad("%s must be above 0", o.show(set, "PreemptAfter"))
	case d.Losses < 0:
		return bad("Damping.Losses %d must be at least 0 (0: off)", d.Losses)
	case d.Losses > 0 && d.Window <= 0:
		return bad("%s must be above 0", o.show(set, "Damping.Window"))
	case d.Losses > 0 && d.Penalty <= 0:
		return bad("%s must be above 0", o.show(set, "Damping.Penalty"))
	case d.Losses > 0 && d.Cap <= 0:
		return bad("%s must be above 0 (0: the default)", o.show(set, "Damping.Cap"))
	case d.Losses > 0 && d.Penalty > d.Cap:
		return bad("%s must be at most %s", o.show(set, "Damping.Penalty"), o.show(set, "Damping.Cap"))
	}
	if err := validateLabels(o.Labels); err != nil {
		return err
	}
	if n := len(encodeCandidate(o.largestRecord())); lim.MaxValueSize > 0 && n > lim.MaxValueSize {
		return bad("Identity and Labels make a candidate record of up to %d bytes; the store allows at most %d", n, lim.MaxValueSize)
	}
	return nil
}

// validateLabels checks Options.Labels against MaxLabels, MaxLabelKey and
// MaxLabelValue.
func validateLabels(labels map[string]string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("lease: Labels: %s: %w", fmt.Sprintf(format, args...), ErrInvalidOption)
	}
	if len(labels) > MaxLabels {
		return bad("%d labels; at most %d", len(labels), MaxLabels)
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same error for the same labels
	for _, k := range keys {
		switch {
		case !labelKey(k):
			return bad("key %q must be 1 to %d characters of [A-Za-z0-9._-]", k, MaxLabelKey)
		case len(labels[k]) > MaxLabelValue:
			return bad("the value of %q is %d bytes; at most %d", k, len(labels[k]), MaxLabelValue)
		}
	}
	return nil
}

func labelKey(k string) bool {
	if len(k) == 0 || len(k) > MaxLabelKey {
		return false
	}
	return strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == ""
}

// largestRecord is the largest candidate record these options can make.
func (o Options) largestRecord() candidateValue {
	return candidateValue{Identity: o.Identity, Priority: math.MinInt, Labels: o.Labels,
		Joined: joinedAt(time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)), NoLead: true, Damped: true,
		Queue: math.MaxUint64}
}
