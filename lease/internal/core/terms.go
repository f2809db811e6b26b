package core

import (
	"errors"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Terms. Every leadership the machine reports (Elected) is a new term of
// its election: a write of the store (a create, or a pass to this
// session) made it, so its token is above every token this machine led
// the election with before. Two leaderships with one token would let a
// write of the first, delayed, pass the fence of the second.
//
// Yet a key bound to this session can outlive the term the machine led
// with it. The machine ends a term without a write of its own when a read
// says the key was lost (ErrKeyLost): a read that was wrong (a watch
// answered with a state read before this session took the key, as seen
// on ZooKeeper under load) leaves the key in place, bound to the session,
// at that term's token; and a store's Create returns a key already bound
// to the session as it is (a retried Create whose reply was lost), as a
// Get shows it to a waiter, which takes it up (see observedWaiting). A
// later campaign of the same session would so lead again with the ended
// term's token.
//
// The machine does not take such a key up. A key bound to the live
// session at a token it led the election with already is ended first, by
// a Delete guarded by that token (the clearing phase: it removes nothing
// else, and a key that moved meanwhile makes it fail with ErrNotFound),
// and then the key is created again, a new write with a new token. That
// costs a round trip where a term could have been taken up; taking it up
// could cost the fence. A key bound to the session at a token it never
// led with (a pass to it, or a Create whose reply was lost) is a term not
// yet led, and taken up as before.
//
// The tokens are kept for the live session only (terms.epoch): a key of
// another session is never taken up without a write of this one (a
// Create of it fails with ErrKeyExists, and a waiter takes up only its
// own session's key), and every write of the store gives a token above
// all earlier ones. So it holds one entry per election the session led,
// until the session ends.

// terms are the tokens the live session led with.
type terms struct {
	epoch uint64            // the session they are of
	led   map[string]uint64 // by election, the highest token led with
}

// ledWith reports whether this session led name with token, or a later
// one: a key of the session at token is a term already led.
func (m *Machine) ledWith(name string, token uint64) bool {
	return m.terms.epoch == m.sess.epoch && token <= m.terms.led[name]
}

// lead notes that this session leads name with token.
func (m *Machine) lead(name string, token uint64) {
	if m.terms.epoch != m.sess.epoch || m.terms.led == nil {
		m.terms = terms{epoch: m.sess.epoch, led: make(map[string]uint64)}
	}
	m.terms.led[name] = max(m.terms.led[name], token)
}

// reclaim ends rec, a key bound to this session at a token it led name
// with already, which e's campaign met (its Create returned it, or a read
// showed it): e deletes it at that token, then creates the key again
// (see cleared). No leadership is reported: the campaign goes on.
func (m *Machine) reclaim(name string, e *election, rec backends.Record) {
	m.leaveLine(name, e)
	e.phase, e.token, e.known = clearing, rec.Token, backends.Record{}
	m.call(e, m.deleteAction(name, e))
}

// cleared takes the outcome err of the clearing e's Delete: the key gone
// (by it, or by another write), e creates the key anew, or ends if it was
// canceled meanwhile; a failure is retried as a resign's is.
func (m *Machine) cleared(now time.Time, name string, e *election, err error) {
	switch {
	case err == nil, errors.Is(err, backends.ErrNotFound):
		e.token = 0
		if e.canceled {
			m.forget(name, ErrCanceled)
			return
		}
		m.create(now, name, e)
	case errors.Is(err, backends.ErrSessionExpired):
		e.lastErr = err
		m.sessionLost(now, err) // the key went with it
	case Permanent(err):
		m.forget(name, err)
	default:
		e.lastErr = err
		m.retry(now, name, e)
	}
}
