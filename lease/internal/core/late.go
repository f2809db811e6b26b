package core

import (
	"errors"
	"slices"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Late creates. A Create that failed with an unknown outcome (a timeout
// after the request was sent) may still be applied later, even after the
// machine's own later writes: the store received it through a node cut
// off from its peers, and applies it once the cut heals, while the
// retry went through another node. It then makes the key, bound to this
// session, if the key is absent at that moment. A campaign that still
// runs takes such a key up (observedWaiting; a retried Create returns
// it). One that ended has no one to lead with the key or let it go, and
// every other candidate waits for it until the session ends, which may be
// never (seen in a soak of a shard group on etcd: a shard unowned for
// 70 s, until its holder's member left).
//
// So the machine notes each election in which a Create of unknown outcome
// was made on the live session. While no campaign runs for it, it reads
// the key (Sweep, with Token 0) and deletes it at the token read if it is
// bound to this session (Sweep with that token): the first read one TTL
// after the campaign ended, the next ones at intervals doubling up to
// lateCapTTLs TTLs, lateReads reads in all (111 TTLs: under four
// minutes at a 2 s TTL), or until the session ends, which ends the key too. A read or a
// delete that fails is made again after the retry wait.
//
// An Enqueue of unknown outcome can land late as well, and its queue entry
// then stands in line with no campaign behind it: the waiters behind it
// wait for it to go, past a holder's crash. So with each read, an election
// with such an Enqueue on the live session has its entry cleaned up as an
// unsure Enqueue's is (Enqueue, which returns the session's entry if
// there is one, then Dequeue; see queue.go). A Join of unknown outcome
// that lands late leaves a candidate record with no campaign, which a
// leader may pass the key to: so with each read, an election with such a
// Join and no candidacy has this session's record deleted again (Leave).

// lateReads and lateCapTTLs bound the reads for late writes: how many,
// and their longest interval, in TTLs.
const (
	lateReads   = 16
	lateCapTTLs = 8
)

// late is an election in which a write of unknown outcome (a Create, an
// Enqueue, a Join) was made on the session epoch.
type late struct {
	epoch  uint64
	writes lateWrites // the kinds of write of unknown outcome made
	op     uint64     // the Sweep in flight; 0: none
	token  uint64     // the key read bound to the session, to delete; 0: read first
	reads  int        // reads that found no key of this session
	at     time.Time  // when the next call is due; zero: none (a campaign runs)
}

// lateWrites are the kinds of write of unknown outcome made in an
// election, as bits.
type lateWrites uint8

const (
	lateCreate lateWrites = 1 << iota
	lateEnqueue
	lateJoin
)

// markLate notes that a write w of unknown outcome was made for name on
// the live session.
func (m *Machine) markLate(name string, w lateWrites) {
	if m.lates == nil {
		m.lates = make(map[string]*late)
	}
	l := m.lates[name]
	if l == nil || l.epoch != m.sess.epoch {
		l = &late{epoch: m.sess.epoch}
		m.lates[name] = l
		if m.els[name] == nil { // a cleanup's Enqueue, a record's Join: no campaign ends to start the reads
			l.at = m.recs.now.Add(m.cfg.TTL)
		}
	}
	l.reads = 0 // a new one: look for as long again
	l.writes |= w
}

// lateAfter schedules the first read for name, whose campaign just ended,
// if a write of unknown outcome was made for it on the live session.
func (m *Machine) lateAfter(name string) {
	l := m.lates[name]
	switch {
	case l == nil:
	case l.epoch != m.Epoch():
		delete(m.lates, name) // the key went with its session
	case l.op == 0:
		l.token, l.at = 0, m.recs.now.Add(m.cfg.TTL)
	}
}

// tickLates makes the late writes' calls that are due, in name order.
// Those of ended sessions are forgotten; a campaign that runs meanwhile
// holds them until it ends (lateAfter).
func (m *Machine) tickLates(now time.Time) {
	var due []string
	for name, l := range m.lates {
		switch {
		case l.epoch != m.Epoch():
			delete(m.lates, name)
		case l.op == 0 && !l.at.IsZero() && !now.Before(l.at):
			due = append(due, name)
		}
	}
	slices.Sort(due)
	for _, name := range due {
		l := m.lates[name]
		if m.els[name] != nil {
			l.at = time.Time{} // the campaign's: looked for again when it ends
			continue
		}
		m.lateCall(name, l)
	}
}

// lateCall makes l's next call for name: a read of the key, with the
// cleanup of its queue entry and the delete of its record if l says so,
// or the key's delete at l.token.
func (m *Machine) lateCall(name string, l *late) {
	l.op, l.at = m.op(), time.Time{}
	m.emit(Action{Kind: Sweep, Election: name, Op: l.op, Epoch: l.epoch, Token: l.token})
	if l.token != 0 {
		return
	}
	if l.writes&lateEnqueue != 0 && !m.cleaning(name, l.epoch) {
		m.cleanCall(&cleanup{name: name, epoch: l.epoch})
	}
	if l.writes&lateJoin != 0 && m.recs.cands[name] == nil {
		m.emit(Action{Kind: Leave, Election: name, Op: m.op(), Epoch: l.epoch}) // its Left matches no candidacy
	}
}

// cleaning reports whether a cleanup of name's entry on session epoch is
// under way or waits for its retry.
func (m *Machine) cleaning(name string, epoch uint64) bool {
	for _, c := range m.cleanups {
		if c.name == name && c.epoch == epoch {
			return true
		}
	}
	return false
}

// lateTimer returns when the next late write's call is due, or zero.
func (m *Machine) lateTimer() time.Time {
	var next time.Time
	for _, l := range m.lates {
		if l.op == 0 && !l.at.IsZero() && (next.IsZero() || l.at.Before(next)) {
			next = l.at
		}
	}
	return next
}

// lateSwept takes the outcome of a late write's Sweep op for name, and
// reports whether op was one.
func (m *Machine) lateSwept(now time.Time, name string, op uint64, rec backends.Record, err error) bool {
	l := m.lates[name]
	if l == nil || op == 0 || l.op != op {
		return false
	}
	l.op = 0
	switch {
	case errors.Is(err, backends.ErrSessionExpired), Permanent(err), l.epoch != m.Epoch():
		delete(m.lates, name)
		return true
	case m.els[name] != nil:
		l.token = 0 // the campaign's now: looked for again when it ends
		return true
	case err != nil && !errors.Is(err, backends.ErrNotFound):
		l.at = now.Add(m.cfg.retryWait())
		return true
	case err == nil && l.token == 0 && rec.Exists() && rec.Owner == m.SessionID():
		l.token = rec.Token
		m.lateCall(name, l)
		return true
	}
	l.token = 0 // deleted, or not this session's
	l.reads++
	if l.reads >= lateReads {
		delete(m.lates, name)
		return true
	}
	l.at = now.Add(m.cfg.TTL * time.Duration(min(1<<min(l.reads, 30), lateCapTTLs)))
	return true
}
