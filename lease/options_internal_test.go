package lease

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// TestOptionErrors: each bad option fails at New with ErrInvalidOption and
// a message that names the option the caller set, its value and its
// allowed range; an option quoted that the caller did not set is marked as
// a default.
func TestOptionErrors(t *testing.T) {
	etcdLim := backends.Limits{MinTTL: 2 * time.Second, TTLGranularity: time.Second}
	zkLim := backends.Limits{MinTTL: 400 * time.Millisecond, MaxTTL: 4 * time.Second}
	for _, tc := range []struct {
		name string
		opts Options
		lim  backends.Limits
		want []string // every one must appear in the message
		not  []string // none may
	}{
		{"drift NaN", Options{TTL: 2 * time.Second, ClockDrift: math.NaN()}, etcdLim,
			[]string{"ClockDrift NaN", "[0, 0.5)"}, []string{"RenewInterval", "-2562047h"}},
		{"drift +Inf", Options{TTL: 2 * time.Second, ClockDrift: math.Inf(1)}, etcdLim,
			[]string{"ClockDrift +Inf", "[0, 0.5)"}, []string{"RenewInterval"}},
		{"drift 0.5", Options{TTL: 2 * time.Second, ClockDrift: 0.5}, etcdLim,
			[]string{"ClockDrift 0.5", "[0, 0.5)"}, nil},
		{"drift leaves no hold", Options{TTL: 2 * time.Second, SafetyMargin: 1100 * time.Millisecond, ClockDrift: 0.45}, etcdLim,
			[]string{"ClockDrift 0.45", "SafetyMargin 1.1s", "= 0s", "no time to act", "at least 2ms"}, []string{"RenewInterval"}},
		{"renew past a short hold", Options{TTL: 2 * time.Second, SafetyMargin: time.Second, ClockDrift: 0.4, RenewInterval: 600 * time.Millisecond}, etcdLim,
			[]string{"ClockDrift 0.4", "SafetyMargin 1s", "RenewInterval 600ms", "= 200ms"}, nil},
		{"renew 1ns", Options{TTL: 2 * time.Second, RenewInterval: 1}, etcdLim,
			[]string{"RenewInterval 1ns", "at least 1ms"}, []string{"RetryInterval", "RequestTimeout"}},
		{"renew at the hold", Options{TTL: 2 * time.Second, RenewInterval: 1480 * time.Millisecond}, etcdLim,
			[]string{"RenewInterval 1.48s", "= 1.48s", "SafetyMargin 500ms (default TTL/4)", "ClockDrift 0.01 (default DefaultClockDrift)"}, nil},
		{"retry 1ns", Options{TTL: 2 * time.Second, RetryInterval: 1}, etcdLim,
			[]string{"RetryInterval 1ns", "at least 1ms"}, []string{"RenewInterval"}},
		{"request timeout 1ns", Options{TTL: 2 * time.Second, RequestTimeout: 1}, etcdLim,
			[]string{"RequestTimeout 1ns", "at least 10ms"}, []string{"RenewInterval"}},
		{"request timeout negative", Options{TTL: 2 * time.Second, RequestTimeout: -time.Second}, etcdLim,
			[]string{"RequestTimeout -1s", "at least 10ms"}, nil},
		{"margin at the TTL", Options{TTL: 2 * time.Second, SafetyMargin: 2 * time.Second}, etcdLim,
			[]string{"SafetyMargin 2s", "[0, TTL 2s)"}, nil},
		{"margin negative", Options{TTL: 2 * time.Second, SafetyMargin: -1}, etcdLim,
			[]string{"SafetyMargin -1ns", "[0, TTL 2s)"}, nil},
		{"ttl below the store's", Options{TTL: time.Second}, etcdLim,
			[]string{"TTL 1s", "at least 2s"}, nil},
		{"default ttl above the store's", Options{}, zkLim,
			[]string{"TTL 10s (default DefaultTTL)", "[400ms, 4s]"}, nil},
		{"ttl negative", Options{TTL: -time.Second}, backends.Limits{},
			[]string{"TTL -1s", "at least 1ns"}, nil},
		{"ttl not whole seconds", Options{TTL: 2500 * time.Millisecond}, etcdLim,
			[]string{"TTL 2.5s", "multiple of 1s"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.withDefaults().validate(tc.opts, tc.lim)
			if !errors.Is(err, ErrInvalidOption) {
				t.Fatalf("error = %v, want ErrInvalidOption", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("error %q talks of %q, an option the caller did not set", err, n)
				}
			}
		})
	}
}

// TestOptionsAccepted: small but sane settings pass, and the derived
// defaults stay within their bounds whatever RenewInterval is.
func TestOptionsAccepted(t *testing.T) {
	lim := backends.Limits{MinTTL: 400 * time.Millisecond, MaxTTL: 4 * time.Second}
	for _, o := range []Options{
		{TTL: 2 * time.Second},
		{TTL: 2 * time.Second, RenewInterval: time.Millisecond},
		{TTL: 2 * time.Second, RenewInterval: 3 * time.Millisecond, ClockDrift: -1},
		{TTL: 400 * time.Millisecond, ClockDrift: 0.49, SafetyMargin: time.Millisecond, RenewInterval: 100 * time.Millisecond},
		{TTL: 2 * time.Second, RequestTimeout: MinRequestTimeout, RetryInterval: MinInterval},
	} {
		if err := o.withDefaults().validate(o, lim); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// TestTimingDefaults: RenewInterval defaults to Hold/2, which makes the
// latency bound Hold/2; a longer interval lowers it to Hold − RenewInterval.
func TestTimingDefaults(t *testing.T) {
	for _, tc := range []struct {
		set                 Options
		renew, retry, bound time.Duration
	}{
		{Options{TTL: 2 * time.Second}, 740 * time.Millisecond, 185 * time.Millisecond, 740 * time.Millisecond},
		{Options{TTL: 10 * time.Second}, 3700 * time.Millisecond, 925 * time.Millisecond, 3700 * time.Millisecond},
		{Options{TTL: 2 * time.Second, RenewInterval: 1100 * time.Millisecond}, 1100 * time.Millisecond, 275 * time.Millisecond, 380 * time.Millisecond},
	} {
		o := tc.set.withDefaults()
		if o.RenewInterval != tc.renew || o.RetryInterval != tc.retry || o.LatencyBound() != tc.bound {
			t.Errorf("%+v: RenewInterval %v RetryInterval %v LatencyBound %v, want %v %v %v",
				tc.set, o.RenewInterval, o.RetryInterval, o.LatencyBound(), tc.renew, tc.retry, tc.bound)
		}
	}
}
