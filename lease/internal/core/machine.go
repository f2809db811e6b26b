// Package core is the election state machine behind package lease. It does
// no I/O, starts no goroutines and never reads a clock: the driver passes the
// time and the outcome of every store call in, and carries out the Actions
// that come out (see Ready). One goroutine must own a Machine.
//
// Beside the Machine it holds the other decisions package lease makes: how
// a reader follows a state without campaigning (Follower), the succession
// order of a roster (List, Succession, Target), and which states an
// observer sends its reader (LeaderSends, ListSends).
//
// # Permanent errors
//
// A store error wrapping backends.ErrPermission (the store refused for
// lack of rights or credentials), backends.ErrTLS (a TLS handshake
// failed on a certificate) or backends.ErrLayout (the prefix is laid out
// by another version) is never retried; it ends what it hit at
// once, with the error as it came:
//   - from a session creation: every campaign (SessionDenied, then each
//     is Released with it);
//   - from a Create, or a Get or Wait while campaigning: that campaign
//     (Released);
//   - from a Get or Wait while leading (the holder can no longer watch
//     its key): the leadership (Lost), and the key is deleted as on a
//     resign;
//   - from a renewal (the holder's rights were revoked): the session, as
//     if it had expired, and so every leadership on it (Lost);
//   - from the Delete of a resign: the resign (Released with it); the key
//     goes when the session ends;
//   - from a Follower's read or wait: the Follower (FollowStop).
//
// # Policies
//
// The election policies (Config.NoLead, Priority, Preempt, YieldTimeout,
// Damping; see policy.go) decide only who creates the key and when: they
// are liveness and preference, and safety rests on the compare-and-swap
// create and the fencing tokens alone. The driver feeds the leader the
// roster of its held elections (Roster) and reports the handover's write
// (Passed); a handover shows as Yield, then Pass (after an Ahead if the
// target waits in a queue and may not wake there) and Released. With the
// policies' zero values, and no roster, the machine acts as it did
// without them.
//
// # Queue mode
//
// With Config.Queue, a campaign that waits for another holder waits in
// line: Enqueue once per session, then Ahead and WaitGone until no entry
// is ahead of it, and only then Wait on the key (see queue.go). The
// machine decides every step and every retry; the driver performs the
// calls and reports their outcomes (Enqueued, AheadFound, Gone,
// Dequeued). Entries left behind are removed by Dequeue, retried until
// done or until their session ends.
//
// # Candidate records and closes
//
// With Config.Roster, the machine also decides the writes of this
// elector's candidate records (Join, Leave, or a Delete or Pass that
// carries the Leave; see candidacy.go), one at a time per election, and
// retries a failed one on its own timer. After a Leave it sweeps up a key
// passed to the campaign that ended (Sweep; sweep.go). It retries the
// close of a session it gave up (CloseSession) for a bounded time
// (closing.go).
//
// # Terms
//
// Every Elected is a new term, with a token above every one the live
// session led the election with before. A key bound to the session at
// such a token, which a Create returned or a read showed (the machine
// ended that term without deleting its key: a read said it was lost), is
// not taken up: it is deleted at that token, and the key is made again
// (see terms.go).
package core

import (
	"errors"
	"slices"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// Reasons a leadership or session ends.
var (
	// ErrRenewDeadline: no renewal succeeded in time, so the store may
	// already have expired the session.
	ErrRenewDeadline = errors.New("renewal deadline passed")
	// ErrKeyLost: the leader key was deleted or replaced behind our back.
	ErrKeyLost = errors.New("leader key deleted or replaced")
	// ErrResigned: the leader resigned.
	ErrResigned = errors.New("resigned")
	// ErrCanceled: the campaign was canceled.
	ErrCanceled = errors.New("campaign canceled")
	// ErrHandover: the leadership ended to hand the election over to
	// another candidate (HandOver, a preemption or an outside request). It
	// is the cause a Yield action stands for; it is not a loss and does
	// not count towards damping.
	ErrHandover = errors.New("leadership handed over")
)

// Config holds the machine's timings, already validated by package lease.
type Config struct {
	// TTL is the session TTL asked of the store.
	TTL time.Duration
	// Margin is subtracted from the TTL to form the holder's deadline.
	Margin time.Duration
	// Drift is the fraction of the TTL allowed for local clock drift.
	Drift float64
	// RenewInterval is the longest time from a renewal's send to the next
	// one's; a slow store makes it shorter (see RenewAt).
	RenewInterval time.Duration
	// RetryInterval is the wait after a failed store call.
	RetryInterval time.Duration
	// Jitter, if set, turns RetryInterval into the wait before one retry
	// of a session creation, an election call or a Follower's read (not
	// of a renewal, which its deadline bounds), so that many candidates
	// and observers do not retry in step after an outage. Nil:
	// RetryInterval exactly.
	Jitter func(time.Duration) time.Duration
	// Queue turns on queue mode (package lease's WaitQueue): a campaign
	// that waits for another holder takes a place in the election's
	// queue and watches the entry ahead of it, not the key (see
	// queue.go). False: every waiter watches the key.
	Queue bool

	// The election policies (see policy.go). Their zero values are
	// today's behaviour: every candidate may lead, none preempts, no
	// damping.

	// NoLead makes every campaign a follower: it waits and watches, and
	// never creates a key, even when none is held.
	NoLead bool
	// Priority is this candidate's priority; higher leads first. It is
	// compared with the Candidate priorities of a Roster.
	Priority int
	// Preempt lets a leader hand over to a Candidate of strictly higher
	// Priority that may lead and is not damped, once the leader has seen
	// it in the roster for PreemptAfter, by its own clock.
	Preempt bool
	// PreemptAfter is the stability window of Preempt.
	PreemptAfter time.Duration
	// YieldTimeout is how long a yielding leader keeps the key for the
	// application to call Resign before it hands over anyway.
	YieldTimeout time.Duration
	// Damping sits out a candidate that loses leadership too often. Off
	// when Losses is 0.
	Damping Damping
	// PassFacts says that a wait's answer is a state the store committed
	// at its Revision, after every state read before at a lower one
	// (backends.Capabilities.CommittedWaits). A waiter that reads the key bound to its
	// own session in an answer at a Revision above the last state it read
	// (so after any write of its own) then leads with it, with no
	// confirming Get: the key was passed to it since, and only its own
	// writes or its session's end can move it.
	PassFacts bool
	// Roster: the store keeps candidate records (backends.Session.Join), and
	// the machine decides their writes (Join, Leave; see candidacy.go).
	Roster bool
	// FoldLeave, with Roster, deletes a campaign's record in the same
	// write as its key (backends.End.Leave; Action.Leave).
	FoldLeave bool
	// Sweep, with Roster, on a store that passes keys to candidates: once
	// a campaign's record is deleted, the key is read, and deleted if it
	// is bound to this session with no campaign for it (see sweep.go).
	Sweep bool
}

// Damping is the flap damping of a candidate, per election: after Losses
// involuntary losses of leadership (not a resign or a handover) within
// Window, the candidate sits out Penalty; each further loss while a loss
// is still within Window doubles the penalty, up to Cap. Package lease
// fills in the defaults; the machine takes the fields as they are.
type Damping struct {
	// Losses is how many losses within Window start damping; 0 turns
	// damping off.
	Losses int
	// Window is how long a loss counts.
	Window time.Duration
	// Penalty is the first sit-out.
	Penalty time.Duration
	// Cap bounds the penalty.
	Cap time.Duration
}

// retryWait is the wait before a retry of a session creation, an
// election call or a Follower's read.
func (c Config) retryWait() time.Duration {
	if c.Jitter == nil {
		return c.RetryInterval
	}
	return c.Jitter(c.RetryInterval)
}

// MinHold is the least Hold a Config may give: less leaves the holder no
// time to act.
const MinHold = 2 * time.Millisecond

// Errors of Config.Validate.
var (
	// ErrHoldTooShort: Hold(TTL) is below MinHold.
	ErrHoldTooShort = errors.New("the holder's time to act is too short")
	// ErrRenewTooLate: RenewInterval is not below Hold(TTL), so a renewal
	// would not be due before the holder's deadline.
	ErrRenewTooLate = errors.New("renewal interval not below the holder's time to act")
)

// Validate checks the timing rules the machine relies on: the holder has
// time to act (Hold(TTL) ≥ MinHold), and a renewal is due before its
// deadline (RenewInterval < Hold(TTL)). Package lease checks the rest of
// the options, against the store's limits, and names them in its errors.
func (c Config) Validate() error {
	hold := c.Hold(c.TTL)
	switch {
	case hold < MinHold:
		return ErrHoldTooShort
	case c.RenewInterval >= hold:
		return ErrRenewTooLate
	}
	return nil
}

// Hold is how long after a renewal was sent the holder may act: the TTL
// minus the margin and the drift allowance.
func (c Config) Hold(ttl time.Duration) time.Duration {
	return ttl - c.Margin - time.Duration(c.Drift*float64(ttl))
}

// LatencyBound is the largest reply latency of renewals (send to answer)
// that a holder survives on a session of the given TTL, however suddenly
// it sets in, given that RenewAt schedules the renewals. The arithmetic
// and why: Timing in package lease's doc.
func (c Config) LatencyBound(ttl time.Duration) time.Duration {
	hold := c.Hold(ttl)
	return min(hold/2, hold-c.RenewInterval)
}

// RenewAt returns when to send the renewal after one sent at sentAt that
// took latency to be answered, on a session of the given TTL: after
// RenewInterval, but early enough that an answer as slow as the last one
// still arrives a latency before the deadline this renewal set (sentAt +
// Hold). A time already past means at once.
func (c Config) RenewAt(sentAt time.Time, latency, ttl time.Duration) time.Time {
	return sentAt.Add(min(c.RenewInterval, c.Hold(ttl)-2*latency))
}

// Machine is the election state machine for one session and the elections
// run on it. It is not safe for concurrent use.
type Machine struct {
	cfg    Config
	sess   session
	els    map[string]*election
	due    map[string]*election // elections waiting out RetryInterval
	nextOp uint64
	out    []Action
	keep   bool // keep a session even without campaigns
	// timed holds the elections that may have a policy timer (see
	// policyTimer); one whose timer is zero is dropped at the next look.
	timed map[string]*election
	// damp holds the damping history per election name; it outlives
	// campaigns and sessions.
	damp map[string]*history
	// enq holds the elections' Enqueue calls in flight, by op, until
	// their report, so that one that comes back after its election left
	// the line is cleaned up; cleanups holds the cleanups of queue
	// entries (see queue.go), by the op of their last call. Both end
	// with their session.
	enq      map[uint64]enqueue
	cleanups map[uint64]*cleanup
	// recs holds the candidate records and the sessions being closed
	// (candidacy.go, closing.go); they outlive campaigns.
	recs records
	// terms holds the tokens the live session led each election with
	// (terms.go); they outlive campaigns.
	terms terms
	// lates holds the elections in which a Create of unknown outcome was
	// made on the live session (late.go); they outlive campaigns.
	lates map[string]*late
}

// New returns a machine with no session and no elections.
func New(cfg Config) *Machine {
	return &Machine{cfg: cfg, els: make(map[string]*election), due: make(map[string]*election),
		timed: make(map[string]*election), damp: make(map[string]*history),
		enq: make(map[uint64]enqueue), cleanups: make(map[uint64]*cleanup)}
}

// Ready returns the actions produced since the last call, in order.
func (m *Machine) Ready() []Action {
	out := m.out
	m.out = nil
	return out
}

// emit adds a to the actions; the candidate record follows it (see
// candidacy.go).
func (m *Machine) emit(a Action) {
	m.out = append(m.out, m.fold(a))
	m.follow(a)
}

// Tick advances the machine to now: it ends a session whose deadline
// passed, sends renewals that are due, retries failed calls (in name
// order) and fires the policies' timers (preemption, yield timeout, end of damping). Every other
// method ticks first, so a result that arrives after the deadline cannot
// make a leader.
func (m *Machine) Tick(now time.Time) {
	m.recs.now = now // for the candidate records (see follow)
	m.tickSession(now)
	var due []string
	for name, e := range m.due {
		if !now.Before(e.retryAt) {
			due = append(due, name)
		}
	}
	slices.Sort(due)
	for _, name := range due {
		e := m.due[name]
		if e == nil {
			continue
		}
		delete(m.due, name)
		e.retryAt = time.Time{}
		m.resume(now, name, e)
	}
	m.tickPolicies(now)
	m.tickCleanups(now)
	m.tickRecords(now)
	m.tickLates(now)
}

// NextTimer returns when Tick should next be called, or the zero time if
// nothing is scheduled.
func (m *Machine) NextTimer() time.Time {
	var next time.Time
	earliest := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	earliest(m.sessionTimer())
	for _, e := range m.due {
		earliest(e.retryAt)
	}
	for _, e := range m.timed {
		earliest(e.policyTimer())
	}
	for _, c := range m.cleanups {
		earliest(c.retryAt)
	}
	earliest(m.recordsTimer())
	earliest(m.lateTimer())
	return next
}

// Deadline returns the time until which the current session lets a holder
// act, or the zero time if there is no live session.
func (m *Machine) Deadline() time.Time {
	if m.sess.state != live {
		return time.Time{}
	}
	return m.sess.deadline
}

// Epoch returns the live session's epoch, or 0 if there is none. A
// leadership is bound to the session of its Elected action's Epoch, and
// ends with it.
func (m *Machine) Epoch() uint64 {
	if m.sess.state != live {
		return 0
	}
	return m.sess.epoch
}

// SessionID returns the live session's ID, or "" if there is none.
func (m *Machine) SessionID() string {
	if m.sess.state != live {
		return ""
	}
	return m.sess.id
}

// Active reports whether the machine still tracks name: campaigning,
// leading or releasing.
func (m *Machine) Active(name string) bool { return m.els[name] != nil }

// LastErr returns the last store error the election's campaign met, if any.
func (m *Machine) LastErr(name string) error {
	if e := m.els[name]; e != nil {
		return e.lastErr
	}
	return nil
}

// Permanent reports whether err is a store error no retry can cure (it
// wraps backends.ErrPermission, backends.ErrTLS or backends.ErrLayout):
// what it hit ends at once. Package lease asks it too, so that one rule
// decides.
func Permanent(err error) bool {
	return errors.Is(err, backends.ErrPermission) || errors.Is(err, backends.ErrTLS) ||
		errors.Is(err, backends.ErrLayout)
}

func (m *Machine) op() uint64 {
	m.nextOp++
	return m.nextOp
}
