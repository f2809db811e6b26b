package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// LeaseElector campaigns for any number of elections over one store
// session, renews that session by heartbeat, and observes leaders. It is
// safe for concurrent use. Close it to stop its goroutines; Close also
// releases every leadership it holds.
//
// One goroutine owned by the elector runs the election state machine; store
// calls run in goroutines it starts, each bounded by RequestTimeout, and
// report back to it. The waits for a change of a leader key (or, in queue
// mode, of the entry ahead) are the exception: those of all its elections
// are requests in one WatchSet (backends.Driver.Watch), with no goroutine
// per election. Observe and ObserveCandidates wait in a second one, shared
// by all observers of the elector, as a set holds one request per
// election and an election may be campaigned and observed at once.
//
// Only New makes a usable LeaseElector. The zero value, or a nil one,
// holds nothing and is safe to use as such: every method that returns an
// error returns one wrapping ErrNotElector and ErrClosed (Close too),
// Identity and SessionID return "", Options returns the zero Options, and
// the Healthz and Readyz handlers answer 500 and 503.
type LeaseElector struct {
	store backends.Driver
	obs   *observers // the WatchSet of Observe and ObserveCandidates
	opts  Options

	ctx      context.Context // ends at Close
	stop     context.CancelFunc
	inbox    chan func(now time.Time)
	renewals chan func(now time.Time) // renewals' reports, taken before inbox (see postRenewal)
	loopDone chan struct{}
	io       sync.WaitGroup // store calls and observers
	slots    *slots         // see maxElectionCalls
	log      *slog.Logger
	health   health
	closed   sync.Once

	openMu sync.Mutex
	open   map[backends.Session]bool // sessions made and not yet closed

	// Owned by the loop goroutine.
	m         *core.Machine
	sessions  map[uint64]*session      // by epoch, until closed or given up (closesession.go)
	elections map[string]*election     // what is in flight or held per election (elections.go)
	set       backends.WatchSet        // made at the first Wait
	tags      uint64                   // the last tag of a request in set
	ready     []chan awaited           // AwaitSession calls
	awaits    map[string][]*targetWait // AwaitTarget calls per election (awaittarget.go)
	winners   []winner                 // campaigns won in this turn of the loop (see answerWinners)
}

// New returns an elector on store, the Store an adapter's New returned
// (etcd.New, zookeeper.New, consul.New). It checks opts against the
// store's limits and fails with an error wrapping ErrInvalidOption that
// names the option and its allowed range, or the store argument if it is
// nil or a zero Store. It does no I/O: the session is created at the first Campaign.
// Closing the elector leaves store open.
func New(store *backends.Store, opts Options) (*LeaseElector, error) {
	if store == nil {
		return nil, fmt.Errorf("lease: New: store argument is nil: pass the *backends.Store an adapter's New returned: %w", ErrInvalidOption)
	}
	d := driver.Of(store)
	if d == nil {
		return nil, fmt.Errorf("lease: New: store argument holds no driver: make it with an adapter's New: %w", ErrInvalidOption)
	}
	set := opts
	opts = opts.withDefaults()
	if err := opts.validate(set, d.Capabilities().Limits); err != nil {
		return nil, err
	}
	opts.Wait, _ = waitMode(opts.Wait) // validate checked it
	cfg := opts.config()
	lim := d.Capabilities()
	cfg.PassFacts = lim.Passes && lim.CommittedWaits
	cfg.Roster, cfg.FoldLeave = true, true // End's Leave
	cfg.Sweep = lim.Passes
	ctx, stop := context.WithCancel(context.Background())
	e := &LeaseElector{store: d, obs: &observers{store: d}, opts: opts, ctx: ctx, stop: stop,
		inbox: make(chan func(time.Time), 64), renewals: make(chan func(time.Time), 4), loopDone: make(chan struct{}),
		m: core.New(cfg), sessions: make(map[uint64]*session),
		elections: make(map[string]*election), open: make(map[backends.Session]bool),
		slots: newSlots(callSlots(lim.MaxCalls)), log: opts.Logger.With("identity", opts.Identity)}
	go e.loop()
	return e, nil
}

// errNotElector is what a method of an elector that New did not make
// returns: see LeaseElector.
var errNotElector = fmt.Errorf("%w (%w)", ErrNotElector, ErrClosed)

// made reports whether New made e.
func (e *LeaseElector) made() bool { return e != nil && e.loopDone != nil }

// check returns an error for op, wrapping ErrNotElector and ErrClosed, if
// New did not make e.
func (e *LeaseElector) check(op string) error {
	if !e.made() {
		return fmt.Errorf("lease: %s: %w", op, errNotElector)
	}
	return nil
}

// Identity returns the value this elector stores in a leader key.
func (e *LeaseElector) Identity() string {
	if !e.made() {
		return ""
	}
	return e.opts.Identity
}

// SessionID returns the ID of the elector's live store session, or "" if
// it has none (before the first Campaign, or between a session's loss and
// its replacement).
func (e *LeaseElector) SessionID() string {
	if !e.made() {
		return ""
	}
	var id string
	e.do(func(time.Time) { id = e.m.SessionID() })
	return id
}

// AwaitSession makes sure the elector has a live store session, creating
// one if needed, and returns its ID once it has. A candidate with a live
// session can take the leader key the moment it is freed, so this is the
// elector's readiness. It fails when ctx ends, the elector closes, or the
// store refuses the session for a permanent reason (an error wrapping
// backends.ErrPermission, with the store's words).
func (e *LeaseElector) AwaitSession(ctx context.Context) (string, error) {
	if err := e.check("await session"); err != nil {
		return "", err
	}
	w := make(chan awaited, 1)
	if !e.do(func(now time.Time) {
		e.ready = append(e.ready, w)
		e.m.WantSession(now)
	}) {
		return "", fmt.Errorf("lease: await session: %w", ErrClosed)
	}
	select {
	case r := <-w:
		if r.err != nil {
			return "", fmt.Errorf("lease: await session: %w", r.err)
		}
		return r.id, nil
	case <-ctx.Done():
		return "", fmt.Errorf("lease: await session: %w", ctx.Err())
	case <-e.loopDone:
		return "", fmt.Errorf("lease: await session: %w", ErrClosed)
	}
}

func (e *LeaseElector) notifyReady() {
	if len(e.ready) == 0 {
		return
	}
	if id := e.m.SessionID(); id != "" {
		e.answerReady(awaited{id: id})
	}
}

// awaited is the answer to an AwaitSession call: a session ID or why
// there will be none.
type awaited struct {
	id  string
	err error
}

func (e *LeaseElector) answerReady(r awaited) {
	for _, w := range e.ready {
		w <- r
	}
	e.ready = nil
}

// Options returns the options in effect, defaults filled in.
func (e *LeaseElector) Options() Options {
	if !e.made() {
		return Options{}
	}
	return e.opts
}

// Close ends every leadership (their contexts are cancelled with ErrClosed
// before any key is released), fails pending campaigns with ErrClosed,
// waits for the elector's goroutines, closes its WatchSets (see
// LeaseElector), and then closes the store session,
// which releases every key it held. ctx bounds that last step. Close is
// idempotent; later calls return nil.
func (e *LeaseElector) Close(ctx context.Context) error {
	if err := e.check("close"); err != nil {
		return err
	}
	first := false
	e.closed.Do(func() { first = true; e.stop() })
	<-e.loopDone
	e.io.Wait()
	if !first {
		return nil
	}
	var errs []error
	if e.set != nil { // the loop, which made it, has ended
		errs = append(errs, e.set.Close())
	}
	errs = append(errs, e.obs.close()) // every observer has returned
	for s := range e.open {
		if err := s.Close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("lease: close: %w", err)
	}
	return nil
}

// track records a session as open (true) or closed (false), so that Close
// can close every session ever made, whatever the loop saw of it.
func (e *LeaseElector) track(s backends.Session, open bool) {
	e.openMu.Lock()
	defer e.openMu.Unlock()
	if open {
		e.open[s] = true
	} else {
		delete(e.open, s)
	}
}

// post runs f on the loop goroutine. It reports false if the elector closed.
func (e *LeaseElector) post(f func(now time.Time)) bool {
	select {
	case e.inbox <- f:
		return true
	case <-e.ctx.Done():
		return false
	}
}

// do runs f on the loop goroutine and waits for it. It reports false if
// the elector closed before f ran.
func (e *LeaseElector) do(f func(now time.Time)) bool {
	done := make(chan struct{})
	if !e.post(func(now time.Time) { f(now); close(done) }) {
		return false
	}
	select {
	case <-done:
		return true
	case <-e.loopDone:
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
}

func (e *LeaseElector) loop() {
	defer close(e.loopDone)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		e.takeRenewals()
		e.step()
		e.notifyReady()
		resetTimer(timer, e.m.NextTimer())
		e.answerWinners()
		select {
		case f := <-e.renewals:
			f(time.Now())
			e.publishHold()
		case f := <-e.inbox:
			f(time.Now())
			// Publish a renewal's new deadline before the actions are
			// carried out: Valid must not see the old one pass meanwhile.
			e.publishHold()
		case <-timer.C:
		case <-e.ctx.Done():
			e.shutdown()
			return
		}
	}
}

// postRenewal is post for a renewal's report. Renewals have their own
// channel, which the loop empties before each step: behind a thousand
// campaigns' reports in inbox, a renewal answered in time would otherwise
// be applied only after step saw the deadline pass, and the session and
// every leadership on it would end although the store had renewed it.
func (e *LeaseElector) postRenewal(f func(now time.Time)) bool {
	select {
	case e.renewals <- f:
		return true
	case <-e.ctx.Done():
		return false
	}
}

// takeRenewals applies the renewals' reports that are waiting.
func (e *LeaseElector) takeRenewals() {
	for {
		select {
		case f := <-e.renewals:
			f(time.Now())
			e.publishHold()
		default:
			return
		}
	}
}

// step advances the machine to now, carries out its actions and
// publishes the holder's deadline for Leadership.Valid. It goes round again
// if publishing found that Valid had already said the deadline passed.
func (e *LeaseElector) step() {
	for {
		e.m.Tick(time.Now())
		for _, a := range e.m.Ready() {
			if e.log.Enabled(e.ctx, slog.LevelDebug) {
				e.log.Debug("action", "action", a.String())
			}
			e.perform(a)
		}
		if e.publishHold() {
			return
		}
	}
}

func resetTimer(t *time.Timer, at time.Time) {
	t.Stop()
	if at.IsZero() {
		return
	}
	t.Reset(time.Until(at))
}

// shutdown ends what the loop owns when the elector closes.
func (e *LeaseElector) shutdown() {
	for name, el := range e.elections {
		if el.held != nil {
			e.ended(name, el.held, ErrClosed)
		}
	}
	e.health.hold.Store(nil)
	e.closeCalls()
	for _, el := range e.elections {
		if el.watch != nil && el.watch.cancel != nil {
			el.watch.cancel()
		}
	}
}
