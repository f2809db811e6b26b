package lease

import "fmt"

// The calls of this elector's users that wait on an election, in the
// election's entry (elections.go) while any waits: a Campaign for its
// outcome, Resigns and a HandOver for the core's Released, and a
// RequestHandover while it runs. Owned by the loop goroutine.

// userCalls is what waits on one election.
type userCalls struct {
	campaign *campaign    // a Campaign waiting for its outcome
	next     *campaign    // a Campaign waiting for the election's last term to end (core.After)
	resigns  []chan error // Resigns waiting for the key's release
	handover chan error   // the HandOver under way, answered at its Released
	request  bool         // a RequestHandover runs (request.go)
}

// none reports whether no call waits.
func (c *userCalls) none() bool {
	return c.campaign == nil && c.next == nil && len(c.resigns) == 0 && c.handover == nil && !c.request
}

// callsOf returns the calls of election, made if needed.
func (e *LeaseElector) callsOf(election string) *userCalls {
	el := e.entry(election)
	if el.calls == nil {
		el.calls = &userCalls{}
	}
	return el.calls
}

// takeCalls removes and returns the calls of election that its
// Released (or the elector's close) answers: its Campaign, Resigns and
// HandOver. A RequestHandover stays.
func (e *LeaseElector) takeCalls(election string) userCalls {
	c := e.of(election).calls
	if c == nil {
		return userCalls{}
	}
	taken := *c
	c.campaign, c.resigns, c.handover = nil, nil, nil
	e.tidyCalls(election)
	return taken
}

// takeCampaign removes and returns the Campaign waiting on election, or
// nil.
func (e *LeaseElector) takeCampaign(election string) *campaign {
	c := e.of(election).calls
	if c == nil {
		return nil
	}
	camp := c.campaign
	c.campaign = nil
	e.tidyCalls(election)
	return camp
}

// requestRuns reports whether a RequestHandover of election runs.
func (e *LeaseElector) requestRuns(election string) bool {
	c := e.of(election).calls
	return c != nil && c.request
}

// tidyCalls drops the calls of election once none waits, and its entry
// if nothing else is in flight (forget).
func (e *LeaseElector) tidyCalls(name string) {
	e.forget(name, func(el *election) {
		if el.calls != nil && el.calls.none() {
			el.calls = nil
		}
	})
}

// closeCalls answers every waiting call as the elector closes: campaigns
// fail with ErrClosed, Resigns succeed (closing the session deletes the
// key), and HandOvers say the key was deleted, not handed over.
func (e *LeaseElector) closeCalls() {
	for name, el := range e.elections {
		if el.calls == nil {
			continue
		}
		next := el.calls.next
		el.calls.next = nil
		c := e.takeCalls(name)
		if c.campaign != nil {
			c.campaign.finish(nil, ErrClosed)
		}
		if next != nil {
			next.finish(nil, ErrClosed)
		}
		for _, w := range c.resigns {
			w <- nil
		}
		if c.handover != nil {
			c.handover <- handedOver(name, fmt.Errorf("%w: %w", ErrNotHandedOver, ErrClosed))
		}
	}
}
