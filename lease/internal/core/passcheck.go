package core

import (
	"errors"
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

// errBehind: a handover's target waits in line behind another entry and
// would not wake there if passed the key (Candidate.Wakes): the key is
// deleted instead, and the Released that ends the handover wraps it.
var errBehind = errors.New("the target waits behind another in line and would not wake")

// lineChecked takes the outcome of checkLine's Ahead: a target at the
// head of its queue, which watches the key, is passed the key; one behind
// another entry, which would not wake, is not, and a failed lookup is
// not either: the key is deleted, as after a failed Pass.
func (m *Machine) lineChecked(name string, e *election, ahead backends.Record, err error) {
	switch {
	case err != nil:
		m.passFailed(name, e, err)
	case ahead.Exists():
		m.passFailed(name, e, errBehind)
	default:
		m.pass(name, e, e.toQueue, "")
	}
}
