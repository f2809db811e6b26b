package core

import (
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Before a Pass to a target that waits in a queue and does not wake in
// line when passed the key (Candidate.Wakes), the leader checks the
// target's place: one behind another entry watches that entry, not the
// key, and would hold the key unawares. The check is an Ahead of the
// target's entry, naming the target (Action.To); the roster alone cannot
// tell, as a waiter writes its record only after its entry is made.

// checkLine looks up the entry ahead of e's target's, before a Pass; its
// first action carries cause (see handOff).
func (m *Machine) checkLine(name string, e *election, cause string) {
	e.phase, e.yieldUntil = passing, time.Time{}
	m.call(e, Action{Kind: Ahead, Election: name, Token: e.toQueue, To: e.to, Cause: cause})
}

// lineChecked takes the outcome of checkLine's Ahead: a target at the
// head of its queue is passed the key; one behind another entry is woken
// first (Proclaim, Nudge, then Pass to it, now watching the key); a
// failed lookup deletes the key with no marker, as a failed Pass does.
func (m *Machine) lineChecked(name string, e *election, ahead backends.Record, err error) {
	switch {
	case err != nil:
		m.passFailed(name, e, err)
	case ahead.Exists():
		m.proclaim(name, e, "")
	default:
		m.pass(name, e, e.toQueue, "")
	}
}
