package lease

import (
	"crypto/rand"
	"encoding/hex"
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

	// SafetyMargin is subtracted from the TTL to set the holder's deadline:
	// a leader stops at (send time of its last successful renewal) + TTL −
	// SafetyMargin − ClockDrift×TTL, before the store can give the key to
	// anyone else. It is the time the application has to stop acting once
	// its leadership context is cancelled. Default TTL/4; must be below
	// the TTL.
	SafetyMargin time.Duration

	// ClockDrift is the largest rate, as a fraction, by which the local
	// monotonic clock may run slower than the store's. Default
	// DefaultClockDrift (1%); must be in [0, 0.5). Set a negative value
	// for no allowance.
	ClockDrift float64

	// RenewInterval is the longest time between the sends of two renewals
	// of the session; a slow store makes it shorter: the next renewal goes
	// out early enough that an answer as slow as the last one arrives
	// before the holder's deadline. A leadership survives any renewal
	// latency below Options.LatencyBound: min(Hold/2, Hold −
	// RenewInterval), where Hold = TTL − SafetyMargin − ClockDrift×TTL. Default Hold/2, which
	// makes the bound Hold/2 (740 ms at a TTL of 2 s); a longer interval
	// costs fewer requests and lowers the bound. At least MinInterval, and
	// below Hold, so that a renewal is due before the holder's deadline.
	RenewInterval time.Duration

	// RetryInterval is the wait before retrying a failed store call.
	// Default RenewInterval/4, or MinInterval if that is less; at least
	// MinInterval. Retries of a session creation or of a
	// campaign's call wait up to a quarter more, at random, so that many
	// candidates do not retry in step after an outage; a failed renewal
	// is retried after RetryInterval exactly.
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
	// session trouble at Warn, routine events at Debug. Default: no logs.
	Logger *slog.Logger

	// Metrics receives measurements (see Metrics). Default: none.
	Metrics Metrics

	// Wait says how a candidate waits while another holds the leader key:
	// WaitQueue, in line with only the head watching the key, so that a
	// release wakes one waiter; or WaitKey, every waiter watching the key.
	// Default WaitAuto: WaitQueue if the store implements
	// backends.Queuer (etcd, ZooKeeper and Consul do), WaitKey otherwise;
	// Options() reports the mode in effect. (In earlier versions the default
	// was key mode and a field Queue bool selected the queue: drop
	// Queue: true, and set Wait: WaitKey for the old default.)
	Wait WaitMode
}

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
	return o
}

func defaultIdentity() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// jitter lengthens a retry wait by up to a quarter at random, so that many
// candidates do not retry in step after an outage.
func jitter(d time.Duration) time.Duration { return d + mrand.N(d/4+1) }

// valueOverhead is what the leader key's value holds beyond the identity:
// a newline and an RFC 3339 time.
const valueOverhead = 1 + len("2006-01-02T15:04:05.999999999Z")

func (o Options) config() core.Config {
	return core.Config{TTL: o.TTL, Margin: o.SafetyMargin, Drift: o.ClockDrift,
		RenewInterval: o.RenewInterval, RetryInterval: o.RetryInterval, Jitter: jitter}
}

// LatencyBound returns the renewal latency (a renewal's send to its
// answer) below which a leader keeps its leadership, however suddenly
// the latency sets in: min(Hold/2, Hold − RenewInterval), where Hold =
// TTL − SafetyMargin − ClockDrift×TTL. At or above it, the holder's
// deadline passes before an answer comes back, and the leadership ends.
// Zero fields take their defaults, as in New.
func (o Options) LatencyBound() time.Duration {
	o = o.withDefaults()
	return o.config().LatencyBound(o.TTL)
}

// validate checks defaulted options o against the store's limits. set
// holds the options as the caller gave them, so that an error names the
// option the caller set, and says of any other it quotes that it is a
// default and how it was derived.
func (o Options) validate(set Options, lim backends.Limits) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("lease: %s: %w", fmt.Sprintf(format, args...), ErrInvalidOption)
	}
	hold := o.config().Hold(o.TTL)
	switch {
	case o.TTL <= 0 || o.TTL < lim.MinTTL || (lim.MaxTTL > 0 && o.TTL > lim.MaxTTL):
		return bad("%s is out of the store's range: %s", o.show(set, "TTL"), ttlRange(lim))
	case lim.TTLGranularity > 0 && o.TTL%lim.TTLGranularity != 0:
		return bad("%s is not a multiple of %v, the store's unit", o.show(set, "TTL"), lim.TTLGranularity)
	case o.SafetyMargin < 0 || o.SafetyMargin >= o.TTL:
		return bad("%s must be in [0, %s)", o.show(set, "SafetyMargin"), o.show(set, "TTL"))
	case math.IsNaN(o.ClockDrift) || math.IsInf(o.ClockDrift, 0) || o.ClockDrift >= maxClockDrift:
		return bad("ClockDrift %v must be in [0, %v) (a negative value means no allowance)", set.ClockDrift, maxClockDrift)
	case hold < 2*MinInterval:
		return bad("TTL − SafetyMargin − ClockDrift×TTL = %v leaves the holder no time to act, with %s, %s and %s; it must be at least %v",
			hold, o.show(set, "TTL"), o.show(set, "SafetyMargin"), o.show(set, "ClockDrift"), 2*MinInterval)
	case o.RenewInterval < MinInterval:
		return bad("%s must be at least %v", o.show(set, "RenewInterval"), MinInterval)
	case o.RetryInterval < MinInterval:
		return bad("%s must be at least %v", o.show(set, "RetryInterval"), MinInterval)
	case o.RequestTimeout < MinRequestTimeout:
		return bad("%s must be at least %v", o.show(set, "RequestTimeout"), MinRequestTimeout)
	case o.RenewInterval >= hold:
		return bad("%s must be below the time a renewal lets the holder act, TTL − SafetyMargin − ClockDrift×TTL = %v, with %s, %s and %s",
			o.show(set, "RenewInterval"), hold, o.show(set, "TTL"), o.show(set, "SafetyMargin"), o.show(set, "ClockDrift"))
	case lim.MaxValueSize > 0 && len(o.Identity)+valueOverhead > lim.MaxValueSize:
		return bad("Identity is %d bytes; the store allows at most %d", len(o.Identity), lim.MaxValueSize-valueOverhead)
	case strings.ContainsRune(o.Identity, '\n'):
		return bad("Identity %q contains a newline", o.Identity)
	}
	return nil
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
	}
	panic("lease: no option " + name)
}
