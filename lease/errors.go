package lease

import (
	"errors"
	"log/slog"

	"github.com/leasehold/leasehold/lease/internal/core"
)

// Errors returned by the elector, and causes of a lost leadership as given
// by context.Cause(l.Context()) and Leadership.Err. Test with errors.Is.
var (
	// ErrInvalidOption: an option or argument is out of range; the message
	// names it and the allowed range.
	ErrInvalidOption = errors.New("invalid option")
	// ErrClosed: the elector was closed.
	ErrClosed = errors.New("elector closed")
	// ErrBusy: the election is already campaigning or held on this elector
	// (a HandOver still under way included), or a RequestHandover of it
	// runs on this elector; a RequestHandover is also refused while a
	// resign of it is in progress (see Campaign and RequestHandover).
	ErrBusy = errors.New("election busy on this elector")
	// ErrNoLeader: the election has no leader.
	ErrNoLeader = errors.New("no leader")
	// ErrLost wraps every cause of a lost leadership.
	ErrLost = errors.New("leadership lost")
	// ErrNotElector: a LeaseElector that New did not make (its zero
	// value, or nil) was used. It holds nothing and acts as closed: its
	// errors wrap ErrClosed too.
	ErrNotElector = errors.New("not an elector from lease.New")
	// ErrNotLeadership: a Leadership that no Campaign returned (its zero
	// value, or one built by hand) was used. It holds nothing.
	ErrNotLeadership = errors.New("not a leadership from Campaign")
	// ErrRenewDeadline: no renewal succeeded within Hold of the last
	// one's send (see Timing in the package doc), so the store may soon
	// hand the key to another.
	ErrRenewDeadline = core.ErrRenewDeadline
	// ErrKeyLost: the leader key was deleted or replaced by someone else.
	ErrKeyLost = core.ErrKeyLost
	// ErrResigned: the leadership was resigned.
	ErrResigned = core.ErrResigned
	// ErrHandover: the leadership was handed over to another candidate
	// (Leadership.HandOver, a preemption, or a request made with
	// RequestHandover). Run resigns, which completes the handover, and
	// campaigns again.
	ErrHandover = core.ErrHandover
	// ErrNoCandidate: a handover found no candidate to hand over to.
	ErrNoCandidate = errors.New("no candidate to hand over to")
	// ErrOvertaken: a RequestHandover's request can no longer be
	// honoured. A term other than the one it asked for began after it
	// was made (another request or handover was honoured, or the leader
	// changed; for the next in line, the same leader won the key again
	// after its term ended), and a leader honours only
	// requests made during its own term. The message names that term's
	// leader and token.
	ErrOvertaken = errors.New("handover request overtaken by another term")
	// ErrNotHandedOver: a handover began (the leadership ended with
	// ErrHandover) but no write of the leader is known to have handed the
	// key to the target: the key was deleted plainly, or went with the
	// leader's session, or the answer was lost. Leadership.HandOver
	// returns it wrapped with ErrLost and the cause.
	ErrNotHandedOver = core.ErrNotHandedOver
)

// levelOf is the level at which a failed store call is logged: error for
// a permanent one, which ends what it hit; debug for any other once the
// elector is closing, as Close cut the call short and closes the sessions
// that the entries and records it was about are bound to (a Run whose
// context ends just before Close leaves its line that way); warn for one
// that is retried.
func (e *LeaseElector) levelOf(err error) slog.Level {
	switch {
	case core.Permanent(err):
		return slog.LevelError
	case e.ctx.Err() != nil:
		return slog.LevelDebug
	}
	return slog.LevelWarn
}
