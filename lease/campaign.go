package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// campaign is a Campaign call waiting for its outcome.
type campaign struct {
	done   chan campaignResult // buffered: the loop never blocks on it
	start  time.Time
	labels map[string]string // of its candidate record (WithLabels)
}

type campaignResult struct {
	l   *Leadership
	err error
}

func (c *campaign) finish(l *Leadership, err error) { c.done <- campaignResult{l, err} }

// Campaign blocks until this elector leads election, ctx ends, or the
// elector closes. Leadership is a compare-and-swap create of the election's
// leader key bound to the elector's session, tried at once; while another
// holds it, Campaign waits in line or on a watch of the key (see
// Options.Wait), not by polling. Store errors are
// retried every RetryInterval until ctx ends; the error then wraps ctx's
// error and the last store error. If the session expires while Campaign
// waits, a new session is made and the campaign goes on. A permanent
// store error (one wrapping backends.ErrPermission: the store refused for
// want of rights or credentials; backends.ErrTLS: a TLS handshake
// failed on a certificate; or backends.ErrLayout: the prefix is laid out
// by another version) is not retried: Campaign returns it at once, with
// the store's words, the TLS error or the versions.
//
// Campaign fails with ErrBusy if the election is already campaigning or held
// on this elector, or a RequestHandover of it runs on this elector (see
// there). A Campaign cancelled just as it won releases the key. A Campaign
// made while an earlier one's cleanup is under way on this elector is not
// busy: one whose context ended while its create was in flight is taken
// up again, and a term still being released (a Resign whose context
// ended before the delete did) is released first.
// The leadership returned outlives ctx: it ends on Resign, on loss, or on
// Close.
//
// opts change this campaign alone (WithLabels); an invalid one fails at
// once with an error wrapping ErrInvalidOption.
func (e *LeaseElector) Campaign(ctx context.Context, election string, opts ...CampaignOption) (*Leadership, error) {
	if err := e.check("campaign"); err != nil {
		return nil, err
	}
	if err := backends.ValidateElection(election); err != nil {
		return nil, fmt.Errorf("lease: campaign: %v: %w", err, ErrInvalidOption)
	}
	labels, err := e.campaignLabels(opts)
	if err != nil {
		return nil, fmt.Errorf("lease: campaign %q: %w", election, err)
	}
	c := &campaign{done: make(chan campaignResult, 1), start: time.Now(), labels: labels}
	var busy error
	if !e.do(func(now time.Time) {
		if busy = e.campaignBusy(election); busy == nil {
			e.startCampaign(now, election, c)
		}
	}) {
		return nil, fmt.Errorf("lease: campaign %q: %w", election, ErrClosed)
	}
	if busy != nil {
		return nil, fmt.Errorf("lease: campaign %q: %w", election, busy)
	}
	select {
	case r := <-c.done:
		return r.l, r.err
	case <-ctx.Done():
		return nil, e.abandon(election, c, ctx)
	}
}

// campaignBusy returns an error wrapping ErrBusy if election may not be
// campaigned for now, or nil. On the loop goroutine.
func (e *LeaseElector) campaignBusy(election string) error {
	el := e.of(election)
	switch {
	case e.requestRuns(election):
		return fmt.Errorf("a RequestHandover of it runs on this elector: %w", ErrBusy)
	case e.m.Busy(election), el.held != nil: // held covers a HandOver under way
		return ErrBusy
	case el.calls != nil && el.calls.next != nil: // a Campaign already waits for the term to end
		return ErrBusy
	}
	return nil
}

// startCampaign starts c's campaign for election in the machine. A
// campaign of it that was canceled while its calls were in flight is
// taken up again; a term of it still ending (a Resign's delete, a
// canceled campaign's key) ends first, and c then waits for the campaign
// that the machine starts after its Released (see nextCampaign). On the
// loop goroutine.
func (e *LeaseElector) startCampaign(now time.Time, election string, c *campaign) {
	calls := e.callsOf(election)
	if e.m.Campaign(now, election) == core.After {
		calls.next = c
		return
	}
	calls.campaign = c
}

// nextCampaign gives the Campaign that waited for election's last term to
// end the campaign the machine started after that term's Released, or
// that Released's error err if it started none. On the loop goroutine.
func (e *LeaseElector) nextCampaign(election string, err error) {
	calls := e.of(election).calls
	if calls == nil || calls.next == nil {
		return
	}
	c := calls.next
	calls.next = nil
	if e.m.Active(election) {
		calls.campaign = c
		return
	}
	e.tidyCalls(election)
	if err == nil {
		err = errors.New("no campaign could start after the last term ended") // the machine restarts but on a permanent error
	}
	c.finish(nil, fmt.Errorf("lease: campaign %q: %w", election, err))
}

// abandon stops a campaign whose ctx ended and says why it stopped.
func (e *LeaseElector) abandon(election string, c *campaign, ctx context.Context) error {
	var last error
	e.do(func(now time.Time) { last = e.abandonNow(now, election, c) })
	if last != nil {
		return fmt.Errorf("lease: campaign %q: %w (last error: %w)", election, context.Cause(ctx), last)
	}
	return fmt.Errorf("lease: campaign %q: %w", election, context.Cause(ctx))
}

// abandonNow stops campaign c of election, and returns the last store
// error it met. On the loop goroutine.
func (e *LeaseElector) abandonNow(now time.Time, election string, c *campaign) error {
	calls := e.of(election).calls
	switch {
	case calls != nil && calls.campaign == c:
		e.takeCampaign(election)
		last := e.m.LastErr(election)
		e.m.Cancel(now, election)
		return last
	case calls != nil && calls.next == c:
		calls.next = nil
		e.tidyCalls(election)
		e.m.Cancel(now, election) // the machine starts no campaign after the ending term
	default:
		if l := won(c); e.holds(l) {
			e.m.Resign(now, election) // won just as ctx ended: release
		}
	}
	return nil
}

// won returns the leadership a finished campaign won, or nil; the
// campaign's result is taken. Only abandon asks, once: a Leadership keeps
// no reference to its campaign (at 10,000 held elections that is about
// 170 bytes each).
func won(c *campaign) *Leadership {
	select {
	case r := <-c.done:
		return r.l
	default:
		return nil
	}
}

func (e *LeaseElector) elected(name string, rec backends.Record, epoch uint64) {
	c := e.takeCampaign(name)
	l := newLeadership(e, rec, epoch)
	l.labels = e.opts.Labels
	if c != nil {
		l.labels = c.labels
	}
	e.entry(name).held = l
	e.health.held.Add(1)
	e.opts.Metrics.Leading(name, true)
	if c != nil {
		e.opts.Metrics.Acquired(name, time.Since(c.start))
		e.winners = append(e.winners, winner{c, l})
	}
	e.log.Info("leadership won", "election", name, "token", rec.Token, "session", rec.Owner)
	e.followInSet(name, l)
}

// winner is a campaign won, and its leadership, not yet returned.
type winner struct {
	c *campaign
	l *Leadership
}

// answerWinners returns their leadership to the campaigns won in this
// turn of the loop, as the loop's last act before it waits: the calls
// that the turn started (a dequeue, the leader's own watch) are under way
// by then, and the Campaign goroutine, readied last, runs next on this
// thread rather than behind them. On the loop goroutine.
func (e *LeaseElector) answerWinners() {
	for i, w := range e.winners {
		w.c.finish(w.l, nil)
		e.winners[i] = winner{}
	}
	e.winners = e.winners[:0]
}

func (e *LeaseElector) lost(name string, cause error) {
	e.stopWatch(name)
	if l := e.of(name).held; l != nil {
		e.ended(name, l, cause)
		if e.m.Active(name) {
			e.entry(name).parting = l // a resign that hands over passes the key next
		}
	}
}

// ended ends a leadership: its context first, then the bookkeeping.
func (e *LeaseElector) ended(name string, l *Leadership, cause error) {
	e.forget(name, func(el *election) { el.held = nil })
	e.unfollow(name)
	l.end(cause)
	e.health.held.Add(-1)
	reason := Reason(cause)
	e.opts.Metrics.Leading(name, false)
	e.opts.Metrics.Lost(name, reason)
	lvl := slog.LevelInfo
	if core.Permanent(cause) {
		lvl = slog.LevelError
	}
	e.log.Log(e.ctx, lvl, "leadership lost", "election", name, "token", l.Token,
		"session", l.Session, "reason", reason, "err", cause)
}

func (e *LeaseElector) released(name string, err error) {
	e.stopWatch(name)
	calls := e.takeCalls(name)
	c := calls.campaign
	if c != nil {
		c.finish(nil, fmt.Errorf("lease: campaign %q: %w", name, err))
	}
	var rerr error // for resigns: nil, or why the store refused the delete
	if core.Permanent(err) {
		// Logged at error only when no caller gets it: a refusal that
		// Campaign or Resign returns is the caller's to report.
		lvl := slog.LevelError
		if c != nil || len(calls.resigns) > 0 {
			lvl = slog.LevelDebug
		}
		e.log.Log(e.ctx, lvl, "election refused by the store", "election", name, "err", err)
		rerr = fmt.Errorf("lease: resign %q: %w", name, err)
	}
	for _, w := range calls.resigns {
		w <- rerr
	}
	if errors.Is(err, ErrNotHandedOver) {
		e.log.Warn("handover ended without handing the key over", "election", name, "err", err)
	}
	if calls.handover != nil {
		calls.handover <- handedOver(name, err)
	}
}

// Leadership is one term of leadership of one election. Its fields do not
// change. It is safe for concurrent use.
//
// Only Campaign (and Run) make a usable Leadership. The zero value, or one
// built by hand, holds nothing, and is safe to use as such: Err and Valid
// return an error wrapping ErrNotLeadership and ErrLost, Context returns a
// context already cancelled with that error (its Done channel closed), and
// Resign an error wrapping ErrNotLeadership.
type Leadership struct {
	// Election is the election name.
	Election string
	// Token is the fencing token of this term, taken from the store: it is
	// greater than the token of every earlier term of this election. Send
	// it with every write to a protected resource (see package fencing).
	Token fencing.Token
	// Identity is the value stored in the leader key.
	Identity string
	// Session is the ID of the store session the key is bound to.
	Session string
	// Acquired is the local time at which the elector learnt it won.
	Acquired time.Time

	e      *LeaseElector // nil: not a leadership from Campaign
	epoch  uint64        // the session the key is bound to (core.Machine.Epoch)
	ctx    context.Context
	cancel context.CancelCauseFunc
	since  time.Time         // the time in the key's value
	labels map[string]string // of its candidate record and proclaimed value
}

func newLeadership(e *LeaseElector, rec backends.Record, epoch uint64) *Leadership {
	ctx, cancel := context.WithCancelCause(context.Background())
	id, since := decodeValue(rec.Value)
	return &Leadership{Election: rec.Election, Token: fencing.Token(rec.Token),
		Identity: id, Session: rec.Owner, Acquired: time.Now(), e: e, epoch: epoch, ctx: ctx, cancel: cancel,
		since: since}
}

// Context returns a context that is cancelled the moment the leadership is
// lost or may have been lost: at the holder's deadline if renewals failed,
// when the store reports the session gone, when the key is deleted by
// someone else, on Resign, or on Close. context.Cause gives the reason,
// wrapping ErrLost. Stop acting on the leadership when it is done.
//
// The context is cancelled by the elector's goroutine: after a pause of
// the process it can still look live for a moment after the deadline
// passed. Check Valid immediately before each write.
func (l *Leadership) Context() context.Context {
	if l.ctx == nil {
		return notLeadership
	}
	return l.ctx
}

// Err returns nil until the leadership's context is cancelled and the
// reason it ended after. Like the context, it can lag the holder's
// deadline after a pause of the process: Valid does not.
func (l *Leadership) Err() error { return context.Cause(l.Context()) }

func (l *Leadership) end(cause error) { l.cancel(l.lostErr(cause)) }

// Resign ends the leadership at once (its context is cancelled with
// ErrResigned) and deletes the leader key if it still holds this term's
// token, never a successor's. It waits until the key is deleted or ctx
// ends; the deletion goes on after ctx ends. If the store refuses the
// delete for a permanent reason, Resign returns that error (wrapping
// backends.ErrPermission) and the key stays until the session ends.
// Resigning a leadership that already ended returns nil.
func (l *Leadership) Resign(ctx context.Context) error {
	if l.e == nil {
		return fmt.Errorf("lease: resign %q: %w", l.Election, ErrNotLeadership)
	}
	cands := l.e.freshRoster(ctx, l)
	w := make(chan error, 1)
	if !l.e.post(func(now time.Time) {
		if !l.e.holds(l) {
			w <- nil
			return
		}
		if cands != nil {
			l.e.m.Roster(now, l.Election, cands)
		}
		calls := l.e.callsOf(l.Election)
		calls.resigns = append(calls.resigns, w)
		l.e.m.Resign(now, l.Election)
	}) {
		return nil // Close releases every key
	}
	select {
	case err := <-w:
		return err
	case <-ctx.Done():
		return fmt.Errorf("lease: resign %q: %w", l.Election, ctx.Err())
	}
}
