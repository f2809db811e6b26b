package core

import (
	"errors"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// A Follower decides how a reader follows a state in the store (a leader
// key, a roster, or both at once) without campaigning: read it first, then
// wait for it to change from the state last known, and so on. The driver
// carries out each step and reports its outcome with Done; the Follower
// keeps the known state K and decides what comes next:
//   - a success makes the result the known state, to wait from;
//   - ErrCompacted (the known revision is gone) forgets it: read again at
//     once;
//   - a permanent error (see Permanent) stops the Follower;
//   - any other error forgets the known state, and the next read waits
//     for Config.RetryInterval, with Config.Jitter if set, so that many
//     followers do not retry in step after an outage;
//   - with Older set, a wait's answer older than the known state is not
//     taken (a reader is never shown a state it has moved past): the
//     next step reads afresh, at once, and takes what the read finds.
//
// A driver that follows several things in one K (a roster and a leader
// key) thus reads them all again after any error. A Follower does no I/O
// and reads no clock. It is not safe for concurrent use.
type Follower[K any] struct {
	retry    time.Duration                     // Config.RetryInterval
	jitter   func(time.Duration) time.Duration // Config.Jitter
	older    func(known, got K) bool           // see Older; nil: every answer is taken
	known    K
	has      bool // known holds a state read or waited for
	op       uint64
	inflight bool // step op awaits its Done
	waiting  bool // step op is a Wait
	retryAt  time.Time
	err      error // the permanent error that stopped it
}

// FollowKind is the kind of a Follower's step.
type FollowKind uint8

// The kinds of FollowStep.
const (
	// FollowRead: read the state afresh, one request bounded by the
	// driver's request timeout, and report it to Done with Op.
	FollowRead FollowKind = iota + 1
	// FollowWait: wait for the state to change from Known, and report
	// the new state to Done with Op.
	FollowWait
	// FollowPause: ask Next again at At; nothing is to be done before.
	FollowPause
	// FollowStop: stop following for good; Err says why.
	FollowStop
)

// FollowStep is what a Follower asks its driver to do next.
type FollowStep[K any] struct {
	Kind FollowKind
	// Op numbers a Read or a Wait; Done takes it back.
	Op uint64
	// Known is the state a Wait waits to change from.
	Known K
	// At is when a Pause ends.
	At time.Time
	// Err is why a Stop stops: the permanent error, as Done got it.
	Err error
}

// NewFollower returns a Follower whose first step is a read. It uses
// cfg's RetryInterval and Jitter only.
func NewFollower[K any](cfg Config) *Follower[K] {
	return &Follower[K]{retry: cfg.RetryInterval, jitter: cfg.Jitter}
}

// Older makes f check each wait's answer against the known state: one
// for which older(known, answer) is true, a state before the known one,
// is not taken, and the next step is a read, at once. A read is taken
// whatever it finds: it was made after every state known, and a store
// whose positions went back (Consul's index can) would otherwise keep
// its follower waiting. It returns f.
func (f *Follower[K]) Older(older func(known, got K) bool) *Follower[K] {
	f.older = older
	return f
}

// Next returns the step to take at now. A Read or a Wait gets a new Op,
// which supersedes any step still awaiting its Done.
func (f *Follower[K]) Next(now time.Time) FollowStep[K] {
	switch {
	case f.err != nil:
		return FollowStep[K]{Kind: FollowStop, Err: f.err}
	case now.Before(f.retryAt):
		return FollowStep[K]{Kind: FollowPause, At: f.retryAt}
	}
	f.op++
	f.inflight, f.waiting = true, f.has
	if !f.has {
		return FollowStep[K]{Kind: FollowRead, Op: f.op}
	}
	return FollowStep[K]{Kind: FollowWait, Op: f.op, Known: f.known}
}

// Done reports at now the outcome of step op: the state it read or waited
// for, or its error. It returns true if the state is now the known one, to
// be shown to the reader; false if err is set, if the state is older than
// the known one (see Older), or if op is stale (not the latest step, or
// already reported), which changes nothing.
func (f *Follower[K]) Done(now time.Time, op uint64, state K, err error) bool {
	if !f.inflight || op != f.op {
		return false
	}
	f.inflight = false
	if err == nil && f.waiting && f.older != nil && f.older(f.known, state) {
		f.has = false // a stale answer: read afresh
		return false
	}
	if err == nil {
		f.known, f.has = state, true
		return true
	}
	var zero K
	f.known, f.has = zero, false
	switch {
	case Permanent(err):
		f.err = err
	case errors.Is(err, backends.ErrCompacted):
	default:
		f.retryAt = now.Add(Config{RetryInterval: f.retry, Jitter: f.jitter}.retryWait())
	}
	return false
}
