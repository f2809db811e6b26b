package core

import "time"

// history is an election's damping history: the recent involuntary
// losses of its leadership and the penalty they earned. The machine keeps
// it per election name across campaigns and sessions.
type history struct {
	losses  []time.Time // within Config.Damping.Window, oldest first, at most Losses
	penalty time.Duration
	until   time.Time // damped before then
}

// recordLoss counts an involuntary loss of name's leadership at now: the
// Losses-th within Window damps the candidate for Penalty, and each
// further one while a loss is still within Window doubles the penalty, up
// to Cap.
func (m *Machine) recordLoss(now time.Time, name string) {
	d := m.cfg.Damping
	if d.Losses <= 0 {
		return
	}
	h := m.damp[name]
	if h == nil {
		h = &history{}
		m.damp[name] = h
	}
	i := 0
	for i < len(h.losses) && !h.losses[i].After(now.Add(-d.Window)) {
		i++
	}
	h.losses = h.losses[i:]
	if len(h.losses) == 0 {
		h.penalty = 0
	}
	h.losses = append(h.losses, now)
	if len(h.losses) > d.Losses {
		h.losses = h.losses[len(h.losses)-d.Losses:]
	}
	if len(h.losses) < d.Losses {
		return
	}
	h.penalty = min(max(2*h.penalty, d.Penalty), d.Cap)
	h.until = now.Add(h.penalty)
}

// DampedUntil returns when the damping of name ends: the candidate sits
// out (creates no key, and its record shows Damped, so that it does not
// preempt) before then. The zero time or a past one means not damped.
func (m *Machine) DampedUntil(name string) time.Time {
	if h := m.damp[name]; h != nil {
		return h.until
	}
	return time.Time{}
}

// startDamped marks a new campaign for name damped if its history says
// so, and asks for its record to show it.
func (m *Machine) startDamped(now time.Time, name string, e *election) {
	until := m.DampedUntil(name)
	if !now.Before(until) {
		return
	}
	e.damped, e.dampEnd = true, until
	m.timed[name] = e
	m.emit(Action{Kind: Publish, Election: name, Damped: true})
}
