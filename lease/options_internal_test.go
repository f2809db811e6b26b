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
		{"preempt after negative", Options{TTL: 2 * time.Second, PreemptAfter: -1}, etcdLim,
			[]string{"PreemptAfter -1ns", "above 0"}, nil},
		{"damping losses negative", Options{TTL: 2 * time.Second, Damping: Damping{Losses: -1}}, etcdLim,
			[]string{"Damping.Losses -1", "at least 0"}, nil},
		{"damping penalty above the cap", Options{TTL: 2 * time.Second, Damping: Damping{Losses: 3, Penalty: 20 * time.Second, Cap: 10 * time.Second}}, etcdLim,
			[]string{"Damping.Penalty 20s", "at most Damping.Cap 10s"}, nil},
		{"damping default penalty above the cap", Options{TTL: 2 * time.Second, Damping: Damping{Losses: 3, Cap: time.Second}}, etcdLim,
			[]string{"Damping.Penalty 2s (default TTL)", "at most Damping.Cap 1s"}, nil},
		{"damping cap negative", Options{TTL: 2 * time.Second, Damping: Damping{Losses: 3, Cap: -time.Second}}, etcdLim,
			[]string{"Damping.Cap -1s", "above 0"}, nil},
		{"damping window negative", Options{TTL: 2 * time.Second, Damping: Damping{Losses: 3, Window: -1}}, etcdLim,
			[]string{"Damping.Window -1ns", "above 0"}, nil},
		{"nolead with preempt", Options{TTL: 2 * time.Second, NoLead: true, Preempt: true}, etcdLim,
			[]string{"NoLead with Preempt", "never hands over"}, nil},
		{"nolead with damping", Options{TTL: 2 * time.Second, NoLead: true, Damping: Damping{Losses: 2}}, etcdLim,
			[]string{"NoLead with Damping.Losses 2", "nothing damps it"}, nil},
		{"too many labels", Options{TTL: 2 * time.Second, Labels: map[string]string{"a": "", "b": "", "c": "", "d": "", "e": "", "f": "", "g": "", "h": "", "i": ""}}, etcdLim,
			[]string{"Labels", "9 labels", "at most 8"}, nil},
		{"label key empty", Options{TTL: 2 * time.Second, Labels: map[string]string{"": "x"}}, etcdLim,
			[]string{"Labels", `key ""`, "1 to 63 characters of [A-Za-z0-9._-]"}, nil},
		{"label key long", Options{TTL: 2 * time.Second, Labels: map[string]string{strings.Repeat("k", 64): "x"}}, etcdLim,
			[]string{"Labels", "1 to 63 characters"}, nil},
		{"label key odd", Options{TTL: 2 * time.Second, Labels: map[string]string{"a/b": "x"}}, etcdLim,
			[]string{"Labels", `key "a/b"`}, nil},
		{"label value long", Options{TTL: 2 * time.Second, Labels: map[string]string{"v": strings.Repeat("x", 257)}}, etcdLim,
			[]string{"Labels", `value of "v" is 257 bytes`, "at most 256"}, nil},
		{"wait mode unknown", Options{TTL: 2 * time.Second, Wait: WaitKey + 1}, etcdLim,
			[]string{"Options.Wait WaitMode(3)", "WaitAuto, WaitQueue or WaitKey"}, nil},
		{"record above the store's limit", Options{TTL: 2 * time.Second, Identity: "id", Labels: map[string]string{"v": strings.Repeat("x", 200)}},
			backends.Limits{MinTTL: time.Second, MaxValueSize: 200},
			[]string{"Identity and Labels", "candidate record", "at most 200"}, nil},
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
		{TTL: 2 * time.Second, Priority: -3, Preempt: true, PreemptAfter: time.Millisecond,
			Labels: map[string]string{"a.B-9_": strings.Repeat("v", 256), strings.Repeat("k", 63): ""}},
		{TTL: 2 * time.Second, Priority: 5, NoLead: true, PreemptAfter: time.Millisecond},
		{TTL: 2 * time.Second, Damping: Damping{Losses: 1, Penalty: time.Minute}},
		{TTL: 2 * time.Second, Damping: Damping{Losses: 3, Window: time.Second, Penalty: time.Second, Cap: time.Second}},
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

// TestPolicyDefaults: the policies' defaults derive from the TTL; damping
// keeps its zero value while off.
func TestPolicyDefaults(t *testing.T) {
	o := Options{TTL: 2 * time.Second}.withDefaults()
	if o.PreemptAfter != 2*time.Second || o.Damping != (Damping{}) {
		t.Errorf("defaults: PreemptAfter %v Damping %+v", o.PreemptAfter, o.Damping)
	}
	d := Options{TTL: 2 * time.Second, Damping: Damping{Losses: 3}}.withDefaults().Damping
	if d != (Damping{Losses: 3, Window: 20 * time.Second, Penalty: 2 * time.Second, Cap: 16 * time.Second}) {
		t.Errorf("damping defaults: %+v", d)
	}
}

// TestNoLeadConflicts: New and Options.Validate refuse NoLead with Preempt
// or with Damping, naming both options, before any I/O.
func TestNoLeadConflicts(t *testing.T) {
	store := embeddedStore(t)
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{NoLead: true, Preempt: true}, "NoLead with Preempt"},
		{Options{NoLead: true, Damping: Damping{Losses: 1}}, "NoLead with Damping.Losses 1"},
	} {
		verr := tc.opts.Validate()
		e, nerr := New(store, tc.opts)
		if e != nil {
			_ = e.Close(t.Context())
		}
		for _, err := range []error{verr, nerr} {
			if !errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v: %v, want ErrInvalidOption naming %q", tc.opts, err, tc.want)
			}
		}
	}
	if err := (Options{NoLead: true}).Validate(); err != nil {
		t.Errorf("NoLead alone: %v", err)
	}
}
