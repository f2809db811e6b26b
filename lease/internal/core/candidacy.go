package core

import (
	"errors"
	"slices"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Candidate records (Config.Roster). A campaign joins its election's
// roster (Join) once its first outcome is known: it won (Elected), the
// key was taken, or it read the key without taking it; in queue mode, a
// campaign that waits in line joins once its entry is made (Queued), and
// its record carries the entry's token. That is one write per campaign
// and session. The record is written again only when what it shows
// changes: damping began or ended (Publish), or the campaign has a new
// queue entry. It is deleted (Leave) when the campaign ends, or in the
// same write as the key (Action.Leave, Config.FoldLeave). Records go with
// their session: a new session's campaigns join again on it, those in
// line once their new entry is made.
//
// The writes of one election go one at a time, each after the last one's
// outcome (Joined, Left), so that a Leave never overtakes the Join it
// undoes. After a failure that a retry may cure, the election's next
// write waits for the retry wait (Config.RetryInterval, with
// Config.Jitter), and then the record is written, or deleted, as the
// campaign then stands. A write refused for good (Permanent) is not made
// again; nor is one whose session expired (the record went with it; a new
// session's campaign writes its own). All of it outlives the election:
// a record is deleted after its campaign ended.

// candidacy is the state of this elector's record in one election's
// roster: what its campaign asks the record to show (while standing),
// and what was last written. The flags sit together at the end, as in
// election: there is one per election.
type candidacy struct {
	epoch  uint64    // the session the campaign stands on; 0: not yet joined
	queue  uint64    // its queue entry's token; 0: none
	joined time.Time // when it first joined, for display
	gen    uint64    // bumped at each change of the above that asks for a write

	rec     uint64    // the session of the record written, or perhaps written; 0: none
	wrote   uint64    // the gen last written, or tried
	op      uint64    // the call in flight: a Join, a Leave, a Delete or Pass with Leave, or a Sweep; 0: none
	opEpoch uint64    // the session it is on
	retryAt time.Time // after a failed write, the next waits until then

	sweep sweep // after a Leave: the key is to be read, and perhaps deleted (sweep.go)

	standing bool // a campaign runs; false: it ended, and the record is to go
	damped   bool // the campaign is damped
	leaving  bool // op is a Leave
}

// busy reports whether c has a write in flight or waits out a failure.
func (c *candidacy) busy() bool { return c.op != 0 || !c.retryAt.IsZero() }

// records is the machine's state of the elector's candidate records and
// of the sessions it is closing (closing.go). Its maps are made when
// first needed.
type records struct {
	now     time.Time // the time of the event being handled (see Tick)
	cands   map[string]*candidacy
	waiting map[string]*candidacy // those of cands that wait out a failed write
	closing map[uint64]*closing
}

// candidacy returns name's candidacy, made if needed, standing: a
// campaign that starts while the record of an ended one is still being
// deleted takes it up, with nothing to show yet.
func (m *Machine) candidacy(name string) *candidacy {
	if m.recs.cands == nil {
		m.recs.cands = make(map[string]*candidacy)
	}
	c := m.recs.cands[name]
	if c == nil {
		c = &candidacy{}
		m.recs.cands[name] = c
	}
	if !c.standing {
		c.epoch, c.queue, c.joined, c.damped, c.standing = 0, 0, time.Time{}, false, true
	}
	return c
}

// Recorded reports whether name's candidate record is written, or is
// being written or deleted, or waits to be: a campaign stands, or the
// record of one that ended is not known gone yet, or its key is still to
// be swept (sweep.go).
func (m *Machine) Recorded(name string) bool { return m.recs.cands[name] != nil }

// follow keeps the candidate record in step with a, an action just
// emitted: a campaign that won joins the roster, one whose queue entry
// was made joins with its token, and Publish changes what the record
// shows.
func (m *Machine) follow(a Action) {
	switch a.Kind {
	case Elected:
		m.stand(m.recs.now, a.Election, 0)
	case Queued:
		m.stand(m.recs.now, a.Election, a.Record.Token)
	case Publish:
		m.publish(a.Election, a.Damped)
	}
}

// stand joins name's roster on the live session, with the queue entry's
// token queue (0: none), unless its campaign has joined on it already
// (with that entry, if queue is not 0). Called when a campaign's outcome
// is known.
func (m *Machine) stand(now time.Time, name string, queue uint64) {
	if !m.cfg.Roster || m.sess.state != live || m.els[name] == nil {
		return
	}
	c := m.candidacy(name)
	if c.epoch == m.sess.epoch && (queue == 0 || c.queue == queue) {
		return // joined on this session: one write per campaign
	}
	if c.joined.IsZero() {
		c.joined = now
	}
	c.epoch, c.queue, c.damped = m.sess.epoch, queue, now.Before(m.DampedUntil(name))
	c.gen++
	m.reconcile(name)
}

// standAfter joins name's roster if ok, unless its campaign holds the key
// or is letting it go (it joined when it won): called when a Create found
// the key taken and the campaign does not wait in line (it joins once its
// entry is made), and when a read of the key succeeded.
func (m *Machine) standAfter(now time.Time, name string, ok bool) {
	if e := m.els[name]; ok && e != nil && !e.holds() && !e.ending() {
		m.stand(now, name, 0)
	}
}

// restand joins, on a new session, the roster of every campaign that
// joined on an older one: its record went with that session. One that
// waits in line joins once its new entry is made (Queued).
func (m *Machine) restand(now time.Time) {
	for _, name := range m.candidacies() {
		c := m.recs.cands[name]
		if c.standing && c.epoch != 0 && c.epoch != m.sess.epoch && !m.InLine(name) {
			m.stand(now, name, 0)
		}
	}
}

// publish makes name's record show damped, the core's Publish; a
// campaign that has not joined yet carries it into its join.
func (m *Machine) publish(name string, damped bool) {
	if !m.cfg.Roster || m.els[name] == nil {
		return
	}
	c := m.candidacy(name)
	if c.damped == damped && c.epoch != 0 {
		return
	}
	c.damped = damped
	if c.epoch != 0 {
		c.gen++
		m.reconcile(name)
	}
}

// standDown ends name's candidacy, as its election is dropped: its record
// is to go.
func (m *Machine) standDown(name string) {
	if c := m.recs.cands[name]; c != nil && c.standing {
		c.standing = false
		m.reconcile(name)
	}
}

// reconcile makes the next write of name's record, if one is due and
// none is in flight or waits out a failure: Join on the live session if
// the campaign asks for a write, Leave if it ended and its record may be
// on the live session. A candidacy that ended, with no record left on the
// live session, is forgotten: a record on an older one went with it.
func (m *Machine) reconcile(name string) {
	c := m.recs.cands[name]
	live := m.Epoch()
	m.sweepDone(name, c, live)
	switch {
	case c == nil || c.busy():
	case c.standing && c.epoch != 0 && c.epoch == live && c.gen != c.wrote:
		c.wrote, c.rec = c.gen, c.epoch
		m.recordCall(c, Action{Kind: Join, Election: name, Epoch: c.epoch, Queue: c.queue, Damped: c.damped, Joined: c.joined})
	case !c.standing && c.rec != 0 && c.rec == live:
		m.recordCall(c, Action{Kind: Leave, Election: name, Epoch: c.rec})
		c.rec = 0
	case c.sweep.due():
		m.recordCall(c, Action{Kind: Sweep, Election: name, Epoch: c.sweep.epoch, Token: c.sweep.token})
	case !c.standing:
		delete(m.recs.cands, name)
	}
}

// recordCall emits a, a write of c's record, as the one in flight.
func (m *Machine) recordCall(c *candidacy, a Action) {
	a.Op = m.op()
	c.op, c.opEpoch, c.leaving = a.Op, a.Epoch, a.Kind == Leave
	m.emit(a)
}

// Joined reports the outcome of Join op for name.
func (m *Machine) Joined(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	c := m.recs.cands[name]
	if c == nil || c.op != op {
		return
	}
	c.op = 0
	if m.retriable(err, c.opEpoch) {
		if !errors.Is(err, backends.ErrUnavailable) {
			m.markLate(name, lateJoin) // it may land later (late.go)
		}
		c.wrote = 0 // write it again
		m.waitOut(now, name, c)
		return
	}
	m.reconcile(name)
}

// waitOut holds name's next record write for the retry wait.
func (m *Machine) waitOut(now time.Time, name string, c *candidacy) {
	if m.recs.waiting == nil {
		m.recs.waiting = make(map[string]*candidacy)
	}
	c.retryAt = now.Add(m.cfg.retryWait())
	m.recs.waiting[name] = c
}

// Left reports the outcome of Leave op for name, or of the Delete or
// Pass op that carried its Leave (Action.Leave). After a failed Leave, no
// write of name's record is made until the retry wait ends; a failed
// Delete or Pass is retried on its own, and the record goes with it, or
// on its own once the campaign ends.
func (m *Machine) Left(now time.Time, name string, op uint64, err error) {
	m.Tick(now)
	c := m.recs.cands[name]
	if c == nil || c.op != op {
		return
	}
	c.op = 0
	retry := c.leaving && m.retriable(err, c.opEpoch)
	if err != nil && c.rec == 0 && (!c.leaving || retry) {
		c.rec = c.opEpoch // it may still be there
	}
	if err == nil && c.leaving && m.cfg.Sweep {
		c.sweep = sweep{epoch: c.opEpoch}
	}
	if retry {
		m.waitOut(now, name, c)
		return
	}
	m.reconcile(name)
}

// retriable reports whether a write of a record on session epoch that
// failed with err is to be made again after the retry wait: not if it
// succeeded, the store refused it for good, or the session is gone (the
// store says it expired, or the machine gave it up): its record went with
// it, and a new session's campaign writes its own.
func (m *Machine) retriable(err error, epoch uint64) bool {
	return err != nil && !Permanent(err) && !errors.Is(err, backends.ErrSessionExpired) && epoch == m.Epoch()
}

// fold makes a, a Delete or Pass of name's key about to be emitted,
// delete the candidate record too, in the same write (Action.Leave,
// Config.FoldLeave): every Delete and Pass that lands ends its campaign,
// whose record would otherwise go in a second write just after, beside
// the successor's create; all but a clearing Delete, after which the
// campaign goes on (terms.go). It does so if the record is on a's session and
// no write of it is in flight or waits out a failure; the record then
// counts as gone until Left says otherwise.
func (m *Machine) fold(a Action) Action {
	if (a.Kind != Delete && a.Kind != Pass) || !m.cfg.FoldLeave {
		return a
	}
	if e := m.els[a.Election]; e != nil && e.phase == clearing {
		return a // its campaign goes on (terms.go)
	}
	c := m.recs.cands[a.Election]
	if c == nil || c.busy() || c.rec == 0 || c.rec != a.Epoch {
		return a
	}
	c.op, c.opEpoch, c.leaving, c.rec = a.Op, c.rec, false, 0
	a.Leave = true
	return a
}

// tickRecords makes the record writes whose retry wait ended, in name
// order, and the retries of session closes that are due (closing.go).
func (m *Machine) tickRecords(now time.Time) {
	var due []string
	for name, c := range m.recs.waiting {
		if !now.Before(c.retryAt) {
			due = append(due, name)
		}
	}
	slices.Sort(due)
	for _, name := range due {
		m.recs.waiting[name].retryAt = time.Time{}
		delete(m.recs.waiting, name)
		m.reconcile(name)
	}
	m.tickClosing(now)
}

// recordsTimer returns when the next record write or session close is
// due to be retried, or the zero time.
func (m *Machine) recordsTimer() time.Time {
	var next time.Time
	for _, c := range m.recs.waiting {
		next = earlier(next, c.retryAt)
	}
	for _, cl := range m.recs.closing {
		if !cl.inflight {
			next = earlier(next, cl.retryAt)
		}
	}
	return next
}

// earlier returns the earlier of a and b, the zero time standing for
// none.
func earlier(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// candidacies returns the names of the candidacies, sorted, for a
// deterministic order of actions.
func (m *Machine) candidacies() []string {
	names := make([]string, 0, len(m.recs.cands))
	for name := range m.recs.cands {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
