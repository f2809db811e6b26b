package lease

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	mrand "math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease/internal/core"
)

// DefaultTTL is the session TTL used when Options.TTL is zero.
const DefaultTTL = 10 * time.Second

// DefaultClockDrift is the clock drift allowance used when
// Options.ClockDrift is zero.
const DefaultClockDrift = 0.01

// Options configure a LeaseElector. The zero value of every field means its
// default; New checks the result against the store's limits.
type Options struct {
	// TTL is the session TTL: how long after the last renewal the store
	// keeps the leader key of a silent holder. It is also about how long a
	// crashed leader blocks its successor. Default DefaultTTL; bounds and
	// granularity are the store's (etcd: 2s and up, whole seconds).
	TTL time.Duration

	// SafetyMargin is subtracted from the TTL to set the holder's deadline
	// (see Timing in the package doc). It is the time the application has
	// to stop acting once its leadership context is cancelled, and the
	// longest a handing-over leader waits for it to let go. Default TTL/4;
	// must be below the TTL.
	SafetyMargin time.Duration

	// ClockDrift is the largest rate, as a fraction, by which the local
	// monotonic clock may run slower than the store's. Default
	// DefaultClockDrift (1%); must be in [0, 0.5). Set a negative value
	// for no allowance.
	ClockDrift float64

	// RenewInterval is the longest time between the sends of two renewals
	// of the session; a slow store makes it shorter (see Timing in the
	// package doc). A longer interval costs fewer requests and lowers
	// LatencyBound. Default Hold/2 (Hold: see Timing); at least
	// MinInterval, and below Hold, so that a renewal is due before the
	// holder's deadline.
	RenewInterval time.Duration

	// RetryInterval is the wait before retrying a failed store call.
	// Default RenewInterval/4, or MinInterval if that is less; at least
	// MinInterval. Retries of a session creation, of a campaign's call,
	// of a candidate record's write, of an observer's read (Observe,
	// ObserveCandidates, a leader's roster) or of the close of a session
	// given up during an outage wait up to a quarter more, at random,
	// so that many candidates and observers do not retry in step after
	// an outage; a failed renewal is retried after RetryInterval
	// exactly.
	RetryInterval time.Duration

	// RequestTimeout bounds every store call except a wait for a change
	// and a renewal: a renewal is bounded only by the holder's deadline,
	// since an answer that comes late still extends the deadline from its
	// send time. Default
	// RenewInterval, or MinRequestTimeout if that is less; at least
	// MinRequestTimeout.
	RequestTimeout time.Duration

	// Identity is the value stored in the leader key while this elector
	// leads, shown to observers. Default "hostname/pid/random".
	Identity string

	// Logger receives structured logs with election, identity, token and
	// session attributes: leadership won and lost at Info, renewal and
	// session trouble at Warn, routine events at Debug, where every action
	// of the elector's state machine and every watch answer (dropped ones
	// too) are logged as well. Default: no logs.
	Logger *slog.Logger

	// Metrics receives measurements (see Metrics). Default: none.
	Metrics Metrics

	// Wait says how a candidate waits while another holds the leader key:
	// WaitQueue, in line with only the head watching the key, so that a
	// release wakes one waiter; or WaitKey, every waiter watching the key.
	// Default WaitAuto: WaitQueue, as every store keeps a queue;
	// Options() reports the mode in effect. (In earlier versions the default
	// was key mode and a field Queue bool selected the queue: drop
	// Queue: true, and set Wait: WaitKey for the old default.)
	Wait WaitMode

	// The election policies below are opt-in: their zero values keep
	// stable leadership, as without them. Every store keeps the
	// candidate records they use.

	// Priority ranks this elector's candidacies: a higher one is next in
	// line before a lower one (LeaseElector.Candidates), and, with
	// Preempt, takes over from a lower-priority leader. Any int; default 0.
	Priority int

	// NoLead makes this elector's candidacies listed and watching, but
	// never leading: its campaigns never take the leader key (an
	// "ordinary process", Patroni's nofailover). Default false. It
	// excludes Preempt and Damping, which act only on a leader: New fails
	// with ErrInvalidOption if either is set with it.
	NoLead bool

	// Labels are published in this elector's candidate records (and with
	// a proclaimed value): small facts such as an address or a version,
	// for display. At most MaxLabels; keys 1 to 63 characters of
	// [A-Za-z0-9._-]; values at most MaxLabelValue bytes. Default none.
	Labels map[string]string

	// Preempt makes a leader hand over to a candidate of strictly higher
	// priority that may lead and is not damped, once that candidate has
	// been in the roster for PreemptAfter. Equal or lower priorities never
	// preempt. Default false: a healthy leader keeps the election.
	Preempt bool

	// FollowRoster makes a leader's resign read its election's candidate
	// list once more and pass the key to the top of the succession order
	// as it is then; a request made with RequestHandover (`leasehold
	// handover`) reaches a leader with or without it. Preempt implies it.
	// Default false: a resign passes to the top of the list as last
	// followed. Every leader follows its list through the elector's watch
	// set (backends.WatchRoster), at no cost while the list stays as it
	// is; FollowRoster adds only that read before a resign.
	FollowRoster bool

	// PreemptAfter is the stability window of preemption: how long, by
	// the leader's clock from when it first saw it, a higher-priority
	// candidate must have been in the roster, eligible, before the leader
	// hands over to it. One that stops being eligible (damped, or gone
	// from the roster) starts again when it comes back. Default TTL; must
	// be above 0.
	PreemptAfter time.Duration

	// Damping keeps a candidate that keeps losing leadership from winning
	// it straight back. Default off (Damping.Losses 0).
	Damping Damping
}

// Damping is flap damping: a candidate that lost leadership Losses times
// within Window sits out for Penalty: it takes no key and preempts no
// one, and its candidate record shows it damped. Each further loss while
// its losses are still within Window doubles the penalty, up to Cap. Only
// involuntary losses count (not a resign, a handover or Close). The
// history is per election and in the elector's memory: it survives a
// session loss and the end of a campaign, not a restart. The zero value
// is off; the defaults below apply only with Losses above 0.
type Damping struct {
	// Losses is how many losses within Window damp the candidate. 0 turns
	// damping off (the default); must be at least 0.
	Losses int
	// Window is how far back losses count. Default 10×TTL; must be above 0.
	Window time.Duration
	// Penalty is how long the first damping lasts. Default TTL; must be
	// above 0 and at most Cap.
	Penalty time.Duration
	// Cap bounds the doubled penalty. Default 8×TTL, or Penalty if that
	// is more; must not be below 0.
	Cap time.Duration
}

// Bounds of Options.Labels.
const (
	// MaxLabels is the most labels Options.Labels may hold.
	MaxLabels = 8
	// MaxLabelKey is the longest label key, in characters of
	// [A-Za-z0-9._-].
	MaxLabelKey = 63
	// MaxLabelValue is the longest label value, in bytes.
	MaxLabelValue = 256
)

// Lower bounds of the intervals, so that a unit mistake (RequestTimeout: 1,
// one nanosecond) fails at New rather than making every store call fail.
const (
	// MinInterval is the least RenewInterval and RetryInterval.
	MinInterval = time.Millisecond
	// MinRequestTimeout is the least RequestTimeout: a store call over a
	// network needs more.
	MinRequestTimeout = 10 * time.Millisecond
)

func (o Options) withDefaults() Options {
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.SafetyMargin == 0 {
		o.SafetyMargin = o.TTL / 4
	}
	if o.ClockDrift == 0 {
		o.ClockDrift = DefaultClockDrift
	} else if o.ClockDrift < 0 {
		o.ClockDrift = 0
	}
	if o.RenewInterval == 0 {
		o.RenewInterval = o.config().Hold(o.TTL) / 2
	}
	if o.RetryInterval == 0 {
		o.RetryInterval = max(o.RenewInterval/4, MinInterval)
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = max(o.RenewInterval, MinRequestTimeout)
	}
	if o.Identity == "" {
		o.Identity = defaultIdentity()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = noMetrics{}
	}
	return o.policyDefaults()
}

// policyDefaults fills in the defaults of the election policies.
func (o Options) policyDefaults() Options {
	if o.PreemptAfter == 0 {
		o.PreemptAfter = o.TTL
	}
	d := &o.Damping
	if d.Losses == 0 {
		return o
	}
	if d.Window == 0 {
		d.Window = 10 * o.TTL
	}
	if d.Penalty == 0 {
		d.Penalty = o.TTL
	}
	if d.Cap == 0 {
		d.Cap = max(8*o.TTL, d.Penalty)
	}
	return o
}

func defaultIdentity() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// jitter lengthens a retry wait at random, as Options.RetryInterval says.
func jitter(d time.Duration) time.Duration { return d + mrand.N(d/4+1) }

// valueOverhead is what the leader key's value holds beyond the identity:
// a newline and an RFC 3339 time.
const valueOverhead = 1 + len("2006-01-02T15:04:05.999999999Z")

func (o Options) config() core.Config {
	d := o.Damping
	return core.Config{TTL: o.TTL, Margin: o.SafetyMargin, Drift: o.ClockDrift,
		RenewInterval: o.RenewInterval, RetryInterval: o.RetryInterval, Jitter: jitter, Queue: o.Wait == WaitQueue,
		NoLead: o.NoLead, Priority: o.Priority, Preempt: o.Preempt, PreemptAfter: o.PreemptAfter,
		YieldTimeout: o.SafetyMargin, Damping: core.Damping{Losses: d.Losses, Window: d.Window, Penalty: d.Penalty, Cap: d.Cap}}
}

// LatencyBound returns the renewal latency (a renewal's send to its
// answer) below which a leader keeps its leadership, however suddenly
// the latency sets in; at or above it, the holder's deadline passes
// before an answer comes back, and the leadership ends. The arithmetic:
// Timing in the package doc. Zero fields take their defaults, as in New.
func (o Options) LatencyBound() time.Duration {
	o = o.withDefaults()
	return o.config().LatencyBound(o.TTL)
}

// Validate checks o as New does, defaults filled in, on a store without
// limits: it fails with an error wrapping ErrInvalidOption that names the
// option (or the options that conflict) and the allowed range. New
// checks the store's limits as well (TTL range and unit, value size), and
// whether the store supports the policies set.
func (o Options) Validate() error {
	return o.withDefaults().validate(o, backends.Limits{})
}

// validate checks defaulted options o against the store's limits. set
// holds the options as the caller gave them, so that an error names the
// option the caller set, and says of any other it quotes that it is a
// default and how it was derived.
func (o Options) validate(set Options, lim backends.Limits) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("lease: %s: %w", fmt.Sprintf(format, args...), ErrInvalidOption)
	}
	if _, err := waitMode(o.Wait); err != nil {
		return err
	}
	hold := o.config().Hold(o.TTL)
	timing := o.config().Validate()
	switch {
	case o.TTL <= 0 || o.TTL < lim.MinTTL || (lim.MaxTTL > 0 && o.TTL > lim.MaxTTL):
		return bad("%s is out of the store's range: %s", o.show(set, "TTL"), ttlRange(lim))
	case lim.TTLGranularity > 0 && o.TTL%lim.TTLGranularity != 0:
		return bad("%s is not a multiple of %v, the store's unit", o.show(set, "TTL"), lim.TTLGranularity)
	case o.SafetyMargin < 0 || o.SafetyMargin >= o.TTL:
		return bad("%s must be in [0, %s)", o.show(set, "SafetyMargin"), o.show(set, "TTL"))
	case math.IsNaN(o.ClockDrift) || math.IsInf(o.ClockDrift, 0) || o.ClockDrift >= maxClockDrift:
		return bad("ClockDrift %v must be in [0, %v) (a negative value means no allowance)", set.ClockDrift, maxClockDrift)
	case errors.Is(timing, core.ErrHoldTooShort):
		return bad("TTL − SafetyMargin − ClockDrift×TTL = %v leaves the holder no time to act, with %s, %s and %s; it must be at least %v",
			hold, o.show(set, "TTL"), o.show(set, "SafetyMargin"), o.show(set, "ClockDrift"), core.MinHold)
	case o.RenewInterval < MinInterval:
		return bad("%s must be at least %v", o.show(set, "RenewInterval"), MinInterval)
	case o.RetryInterval < MinInterval:
		return bad("%s must be at least %v", o.show(set, "RetryInterval"), MinInterval)
	case o.RequestTimeout < MinRequestTimeout:
		return bad("%s must be at least %v", o.show(set, "RequestTimeout"), MinRequestTimeout)
	case errors.Is(timing, core.ErrRenewTooLate):
		return bad("%s must be below the time a renewal lets the holder act, TTL − SafetyMargin − ClockDrift×TTL = %v, with %s, %s and %s",
			o.show(set, "RenewInterval"), hold, o.show(set, "TTL"), o.show(set, "SafetyMargin"), o.show(set, "ClockDrift"))
	case lim.MaxValueSize > 0 && len(o.Identity)+valueOverhead > lim.MaxValueSize:
		return bad("Identity is %d bytes; the store allows at most %d", len(o.Identity), lim.MaxValueSize-valueOverhead)
	case strings.ContainsRune(o.Identity, '\n'):
		return bad("Identity %q contains a newline", o.Identity)
	}
	return o.validatePolicies(set, lim)
}

// maxClockDrift bounds ClockDrift: a clock half as fast as the store's is
// broken, not drifting.
const maxClockDrift = 0.5

// ttlRange renders the store's TTL bounds.
func ttlRange(lim backends.Limits) string {
	if lim.MaxTTL > 0 {
		return fmt.Sprintf("[%v, %v]", max(lim.MinTTL, 1), lim.MaxTTL)
	}
	return fmt.Sprintf("at least %v", max(lim.MinTTL, 1))
}

// show renders the named option's value in o, with how it was derived if
// the caller left it to its default (zero in set).
func (o Options) show(set Options, name string) string {
	v, given, def := o.field(set, name)
	if given {
		return fmt.Sprintf("%s %v", name, v)
	}
	return fmt.Sprintf("%s %v (default %s)", name, v, def)
}

// field returns the named option's value in o, whether the caller set it,
// and how its default is derived.
func (o Options) field(set Options, name string) (v any, given bool, def string) {
	switch name {
	case "TTL":
		return o.TTL, set.TTL != 0, "DefaultTTL"
	case "SafetyMargin":
		return o.SafetyMargin, set.SafetyMargin != 0, "TTL/4"
	case "ClockDrift":
		return o.ClockDrift, set.ClockDrift != 0, "DefaultClockDrift"
	case "RenewInterval":
		return o.RenewInterval, set.RenewInterval != 0, "(TTL − SafetyMargin − ClockDrift×TTL)/2"
	case "RetryInterval":
		return o.RetryInterval, set.RetryInterval != 0, fmt.Sprintf("RenewInterval/4, at least %v", MinInterval)
	case "RequestTimeout":
		return o.RequestTimeout, set.RequestTimeout != 0, fmt.Sprintf("RenewInterval, at least %v", MinRequestTimeout)
	case "PreemptAfter":
		return o.PreemptAfter, set.PreemptAfter != 0, "TTL"
	case "Damping.Window":
		return o.Damping.Window, set.Damping.Window != 0, "10×TTL"
	case "Damping.Penalty":
		return o.Damping.Penalty, set.Damping.Penalty != 0, "TTL"
	case "Damping.Cap":
		return o.Damping.Cap, set.Damping.Cap != 0, "8×TTL, at least Penalty"
	}
	panic("lease: no option " + name)
}
