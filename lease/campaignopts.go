package lease

import (
	"fmt"
	"maps"
)

// CampaignOption changes one campaign of a Campaign call, not the
// elector's Options. Make one with WithLabels.
type CampaignOption func(*campaignOptions)

type campaignOptions struct {
	labels map[string]string // set by WithLabels
}

// WithLabels merges labels over Options.Labels in this campaign's
// candidate record, and in the leader key's value when its leadership
// proclaims: a key in labels replaces the elector's value of that key.
// The elector's other campaigns keep Options.Labels. The merged labels
// obey the rules of Options.Labels (at most MaxLabels; keys 1 to
// MaxLabelKey characters of [A-Za-z0-9._-]; values at most MaxLabelValue
// bytes), and the record they make must fit the store's
// Limits.MaxValueSize: Campaign fails at once with an error wrapping
// ErrInvalidOption otherwise. A later WithLabels in one call replaces an
// earlier one.
func WithLabels(labels map[string]string) CampaignOption {
	return func(o *campaignOptions) { o.labels = labels }
}

// campaignLabels returns the labels of a campaign made with opts:
// Options.Labels with WithLabels's merged over them, checked as
// Options.Labels are.
func (e *LeaseElector) campaignLabels(opts []CampaignOption) (map[string]string, error) {
	var co campaignOptions
	for _, f := range opts {
		f(&co)
	}
	if co.labels == nil {
		return e.opts.Labels, nil
	}
	merged := maps.Clone(e.opts.Labels)
	if merged == nil {
		merged = make(map[string]string, len(co.labels))
	}
	maps.Copy(merged, co.labels)
	if err := validateLabels(merged); err != nil {
		return nil, fmt.Errorf("WithLabels: %w", err)
	}
	o := e.opts
	o.Labels = merged
	if n, lim := len(encodeCandidate(o.largestRecord())), e.store.Capabilities().MaxValueSize; lim > 0 && n > lim {
		return nil, fmt.Errorf("WithLabels: Identity and Labels make a candidate record of up to %d bytes; the store allows at most %d: %w",
			n, lim, ErrInvalidOption)
	}
	return merged, nil
}

// labelsOf returns the labels of election's candidate record: those of
// its campaign, or of its leadership, held or being let go. On the loop
// goroutine.
func (e *LeaseElector) labelsOf(election string) map[string]string {
	el := e.of(election)
	switch {
	case el.calls != nil && el.calls.campaign != nil:
		return el.calls.campaign.labels
	case el.held != nil:
		return el.held.labels
	case el.parting != nil:
		return el.parting.labels
	}
	return e.opts.Labels
}
