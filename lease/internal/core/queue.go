package core

import (
	"errors"
	"slices"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Queue mode (Config.Queue). A waiting campaign whose key another session
// holds takes a place in the election's queue on the live session
// (Enqueue, once per session), and waits until no entry is ahead of it:
// Ahead finds the entry ahead, WaitGone waits for it to go, Ahead again.
// At the head it waits on the key (Wait) and creates it when it goes. The
// entry is removed (Dequeue) when the campaign leaves the line: it won or
// ended. Entries go with their session, and so does all of this state.
//
// A handover's target is woken in line by the pass itself: the WatchSet
// answers its WaitGone with the key's state (Woken). Campaigns that wait
// on the key directly (Action.Direct: NoLead, damped) take no place in
// line.

// line is a waiting election's place in its queue.
type line struct {
	entry  backends.Record // the election's entry; Token 0: none
	epoch  uint64          // the session entry (or an unsure Enqueue) was made on
	ahead  backends.Record // the entry ahead last asked about
	unsure bool            // an Enqueue of unknown outcome may have made an entry
	head   bool            // entry is at the head of the queue
}

// enqueue is an election's Enqueue in flight.
type enqueue struct {
	name  string
	epoch uint64
}

// cleanup removes a queue entry: entry, or, if its Token is 0, the one an
// Enqueue of unknown outcome may have made (Enqueue again, then Dequeue).
type cleanup struct {
	name     string
	entry    backends.Record
	epoch    uint64
	inflight bool
	retryAt  time.Time // when !inflight: call again then
}

// queues reports whether the waiting e waits in its queue, not on the
// key: queue mode, a live session, the key held by another session, and
// no Direct wait.
func (m *Machine) queues(e *election) bool {
	return m.cfg.Queue && e.phase == waiting && m.sess.state == live &&
		e.known.Exists() && e.known.Owner != m.sess.id && !m.direct(e)
}

// InLine reports whether name waits in its queue (see queues): a
// campaign that found the key taken then joins the roster with its queue
// entry (Queued), not before.
func (m *Machine) InLine(name string) bool {
	e := m.els[name]
	return e != nil && m.queues(e)
}

// lineStep makes e's next call in line: Enqueue without an entry, Wait on
// the key at the head, else Ahead.
func (m *Machine) lineStep(name string, e *election) {
	l := &e.line
	switch {
	case !l.entry.Exists():
		l.ahead = backends.Record{}
		m.adoptCleanups(name, e)
		m.call(e, Action{Kind: Enqueue, Election: name, Epoch: m.sess.epoch})
		m.enq[e.op] = enqueue{name: name, epoch: m.sess.epoch}
	case l.head:
		m.call(e, Action{Kind: Wait, Election: name, Record: e.known})
	default:
		m.call(e, Action{Kind: Ahead, Election: name, Token: l.entry.Token})
	}
}

// queueCall reports whether e's call in flight is a step in line.
func (e *election) queueCall() bool {
	switch e.kind {
	case Enqueue, Ahead, WaitGone:
		return true
	}
	return false
}

// Enqueued reports the outcome of Enqueue op for name: the entry made, or
// why none was. One that comes back after its election left the line is
// cleaned up (Dequeue).
func (m *Machine) Enqueued(now time.Time, name string, op uint64, entry backends.Record, err error) {
	m.Tick(now)
	if enqueueUnsure(err) && m.sess.state == live {
		m.markLate(name, lateEnqueue) // it may land later (late.go)
	}
	if c := m.cleanups[op]; c != nil && c.inflight {
		delete(m.cleanups, op)
		m.cleanupEnqueued(now, c, entry, err)
		return
	}
	p, ok := m.enq[op]
	if !ok {
		return // its session ended, and the entry with it
	}
	delete(m.enq, op)
	e := m.result(name, op)
	switch {
	case e == nil:
		m.staleEnqueued(p, entry, err)
	case err == nil:
		e.line = line{entry: entry, epoch: p.epoch}
		m.emit(Action{Kind: Queued, Election: name, Record: entry})
		m.wait(name, e)
	default:
		if enqueueUnsure(err) {
			e.line.unsure, e.line.epoch = true, p.epoch
		}
		m.lineFailed(now, name, e, err)
	}
}

// enqueueUnsure reports whether an Enqueue that failed with err may still
// have made an entry: false if it did not fail.
func enqueueUnsure(err error) bool {
	return err != nil && !errors.Is(err, backends.ErrSessionExpired) && !errors.Is(err, backends.ErrUnavailable) && !Permanent(err)
}

// AheadFound reports the outcome of Ahead op for name: the entry ahead,
// or one with Token 0 at the head. An Ahead with To set is a handover's
// (see lineChecked).
func (m *Machine) AheadFound(now time.Time, name string, op uint64, ahead backends.Record, err error) {
	m.Tick(now)
	e := m.result(name, op)
	if e == nil {
		return
	}
	if e.phase == passing {
		m.lineChecked(name, e, ahead, err)
		return
	}
	l := &e.line
	switch {
	case err != nil:
		m.lineFailed(now, name, e, err)
	case !ahead.Exists():
		l.head = true
		m.wait(name, e)
	default:
		l.ahead = ahead
		m.call(e, Action{Kind: WaitGone, Election: name, Record: ahead, Mine: l.entry})
	}
}

// Gone reports the outcome of WaitGone op for name: the entry ahead is
// gone (err nil; or the wait returned early), or the wait failed.
func (m *Machine) Gone(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	e := m.result(name, op)
	switch {
	case e == nil:
	case err != nil:
		m.lineFailed(now, name, e, err)
	default:
		m.wait(name, e)
	}
}

// Woken reports that WaitGone op for name was answered by a handover to a
// target at or behind this place in line, with rec, the key's state
// after the pass. It is observed as a Wait's outcome, with no Ahead: a
// target passed the key confirms it with a Get (or a fact, see
// Config.PassFacts) and leads; the others between it and the head go
// back to the line.
func (m *Machine) Woken(now time.Time, name string, op uint64, rec backends.Record) {
	m.Tick(now)
	if e := m.result(name, op); e != nil {
		m.observedWaiting(now, name, e, rec)
	}
}

// lineFailed handles a failed step in line as a failed Wait: a compacted
// watch looks again at once, a permanent error ends the campaign, an
// expired session is replaced, and any other error is retried after the
// retry wait, with a read of the key first: a wake for a pass that the
// failed wait missed is not repeated.
func (m *Machine) lineFailed(now time.Time, name string, e *election, err error) {
	switch {
	case errors.Is(err, backends.ErrCompacted):
		m.wait(name, e)
	case Permanent(err):
		m.forget(name, err)
	case errors.Is(err, backends.ErrSessionExpired):
		e.lastErr = err
		m.sessionLost(now, err)
		if m.els[name] == e && !e.inflight {
			m.wait(name, e) // on the key until a new session
		}
	default:
		e.lastErr = err
		e.known.Revision = 0 // read the key first: a handover may have woken the line meanwhile
		m.retry(now, name, e)
	}
}

// leaveLine removes e's entry, or the one an unsure Enqueue may have
// made, unless it went with its session. An Enqueue in flight is cleaned
// up when it comes back (staleEnqueued).
func (m *Machine) leaveLine(name string, e *election) {
	l := e.line
	e.line = line{}
	switch {
	case m.sess.state != live || l.epoch != m.sess.epoch:
	case l.entry.Exists():
		m.cleanCall(&cleanup{name: name, entry: l.entry, epoch: l.epoch})
	case l.unsure:
		m.cleanCall(&cleanup{name: name, epoch: l.epoch})
	}
}

// staleEnqueued handles an Enqueue that came back after its election left
// the line: an entry it made, or may have made, is removed, unless a
// campaign of the same name waits in line on the same session again (an
// Enqueue is idempotent per session: that campaign has the same entry).
func (m *Machine) staleEnqueued(p enqueue, entry backends.Record, err error) {
	switch {
	case m.sess.state != live || p.epoch != m.sess.epoch:
	case m.adopted(p.name, p.epoch):
		if e := m.els[p.name]; !e.line.entry.Exists() {
			e.line.unsure, e.line.epoch = true, p.epoch // its own Enqueue may yet fail
		}
	case err == nil:
		m.cleanCall(&cleanup{name: p.name, entry: entry, epoch: p.epoch})
	case enqueueUnsure(err):
		m.cleanCall(&cleanup{name: p.name, epoch: p.epoch})
	}
}

// adopted reports whether a campaign for name has, or is making, an
// entry on session epoch.
func (m *Machine) adopted(name string, epoch uint64) bool {
	e := m.els[name]
	if e == nil {
		return false
	}
	return (e.line.entry.Exists() && e.line.epoch == epoch) || (e.inflight && e.kind == Enqueue)
}

// adoptCleanups drops the cleanups of name's entries on the live session
// that wait for a retry: the Enqueue about to be made for e returns that
// entry (it is idempotent per session), and e keeps it; until it knows
// it, e counts as unsure.
func (m *Machine) adoptCleanups(name string, e *election) {
	for op, c := range m.cleanups {
		if c.name == name && c.epoch == m.sess.epoch && !c.inflight {
			delete(m.cleanups, op)
			e.line.unsure, e.line.epoch = true, c.epoch
		}
	}
}

// cleanCall makes c's next call: Dequeue of its entry, or, if none is
// known, Enqueue to find it.
func (m *Machine) cleanCall(c *cleanup) {
	op := m.op()
	c.inflight, c.retryAt = true, time.Time{}
	m.cleanups[op] = c
	if c.entry.Exists() {
		m.emit(Action{Kind: Dequeue, Election: c.name, Op: op, Record: c.entry})
		return
	}
	m.emit(Action{Kind: Enqueue, Election: c.name, Op: op, Epoch: c.epoch, Cleanup: true})
}

// cleanupEnqueued takes the outcome of a cleanup's Enqueue: the entry is
// dequeued next; an expired session took it already.
func (m *Machine) cleanupEnqueued(now time.Time, c *cleanup, entry backends.Record, err error) {
	switch {
	case err == nil:
		c.entry = entry
		m.cleanCall(c)
	case errors.Is(err, backends.ErrSessionExpired), Permanent(err):
	default:
		m.cleanLater(now, c)
	}
}

// Dequeued reports the outcome of Dequeue op. A failure other than a
// permanent one is retried after the retry wait, until the entry's
// session ends: an entry left behind would hold up the waiter behind it.
func (m *Machine) Dequeued(now time.Time, op uint64, err error) {
	m.Tick(now)
	c := m.cleanups[op]
	if c == nil || !c.inflight {
		return
	}
	delete(m.cleanups, op)
	switch {
	case err == nil, errors.Is(err, backends.ErrNotFound), errors.Is(err, backends.ErrSessionExpired):
		m.cleaned(c)
	case Permanent(err):
	default:
		m.cleanLater(now, c)
	}
}

// cleaned notes that c's entry is gone: a campaign that took it up again
// (adoptCleanups came too late) makes a new one at its next step.
func (m *Machine) cleaned(c *cleanup) {
	if e := m.els[c.name]; e != nil && e.line.epoch == c.epoch && e.line.entry.Token == c.entry.Token {
		e.line.entry, e.line.head = backends.Record{}, false
	}
}

func (m *Machine) cleanLater(now time.Time, c *cleanup) {
	c.inflight, c.retryAt = false, now.Add(m.cfg.retryWait())
	m.cleanups[m.op()] = c
}

// tickCleanups makes the cleanups' calls that are due, in op order.
func (m *Machine) tickCleanups(now time.Time) {
	var due []uint64
	for op, c := range m.cleanups {
		if !c.inflight && !now.Before(c.retryAt) {
			due = append(due, op)
		}
	}
	slices.Sort(due)
	for _, op := range due {
		c := m.cleanups[op]
		delete(m.cleanups, op)
		m.cleanCall(c)
	}
}

// lineLost resets the queue state when the session ends: its entries went
// with it. A waiting e whose step in line was in flight waits on the key
// until the next session (SessionCreated puts it back in line).
func (m *Machine) lineLost() {
	clear(m.enq)
	clear(m.cleanups)
	for _, name := range m.names() {
		e := m.els[name]
		requeue := e.phase == waiting && e.inflight && e.queueCall()
		e.line = line{}
		if requeue {
			m.wait(name, e)
		}
	}
}

// requeue puts back in line, on a new session, the waiting campaigns that
// wait on the key only for want of a session.
func (m *Machine) requeue() {
	for _, name := range m.names() {
		if e := m.els[name]; e.inflight && e.kind == Wait && !e.line.entry.Exists() && m.queues(e) {
			m.wait(name, e)
		}
	}
}

// names returns the names of the elections, sorted, for a deterministic
// order of actions.
func (m *Machine) names() []string {
	names := make([]string, 0, len(m.els))
	for name := range m.els {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
