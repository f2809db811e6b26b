package core

import (
	"errors"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Sweeping up a key passed to a campaign that ended (Config.Sweep). A
// leader passes its key to a candidate its roster shows (a handover, a
// resign's successor, a move), and the store checks that the target's
// record exists. A campaign that ends while that record is still there
// (its Leave not yet made, slow or failing) can be passed the key after
// it ended: the key is then bound to a live session with no campaign to
// lead with it or let it go, and every other candidate waits for it
// until that session ends, which may be never.
//
// So once the record is known deleted (a Leave that succeeded), no pass
// can reach this session any more, and one read of the key shows whether
// one did. If the key is bound to the session the record was on and no
// campaign runs for the election, it is deleted at the token read.
// The read and the delete are retried after the retry wait, like a
// record's writes, while that session lives: a sweep that fails leaves
// the key as stuck as no sweep at all. A campaign that starts meanwhile
// ends the sweep: the key bound to its session is its own to take
// (a retried Create returns it).

// sweep is the state of a candidacy's sweep; the zero value: none.
type sweep struct {
	epoch uint64 // the session the record was on; 0: no sweep is to be made or in flight
	token uint64 // the key to delete, read bound to that session; 0: read first
}

// due reports whether a sweep is to be made, or is in flight.
func (s sweep) due() bool { return s.epoch != 0 }

// sweepDone ends the sweep of name's candidacy c if there is no point to
// it any more: a campaign runs again, or the session the record was on is
// not the live one (the key, if passed to it, went with it).
func (m *Machine) sweepDone(name string, c *candidacy, live uint64) {
	if c != nil && c.sweep.due() && c.op == 0 && (m.els[name] != nil || c.sweep.epoch != live) {
		c.sweep = sweep{}
	}
}

// Swept reports the outcome of Sweep op for name: the key read (a read),
// or err.
func (m *Machine) Swept(now time.Time, name string, op uint64, rec backends.Record, err error) {
	m.Tick(now)
	if m.lateSwept(now, name, op, rec, err) {
		return
	}
	c := m.recs.cands[name]
	if c == nil || c.op != op {
		return
	}
	c.op = 0
	s := &c.sweep
	switch {
	case errors.Is(err, backends.ErrNotFound):
		*s = sweep{} // not held at the token: gone, or taken by another
	case m.retriable(err, s.epoch):
		s.token = 0 // read it again after the wait
		m.waitOut(now, name, c)
		return
	case err != nil, s.token != 0:
		*s = sweep{} // deleted, or the session or the right to is gone
	case rec.Exists() && rec.Owner == m.SessionID() && s.epoch == m.Epoch() && m.els[name] == nil:
		s.token = rec.Token
	default:
		*s = sweep{}
	}
	m.reconcile(name)
}
