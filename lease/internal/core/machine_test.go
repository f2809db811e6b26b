package core

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/leasehold/leasehold/backends"
)

// TestMachine runs the scripts in testdata but the follower's
// (TestFollow). Each command feeds one event at time t (milliseconds from
// an arbitrary origin) and prints the actions it produced, then the next
// timer and the holder's deadline. Regenerate the expected output with:
// go test ./lease/internal/core -rewrite
func TestMachine(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if isFollowScript(path) || isListScript(path) {
			return
		}
		var m *Machine
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "config" {
				m = New(scriptConfig(t, d))
				return ""
			}
			if m == nil {
				d.Fatalf(t, "config must come first")
			}
			if d.Cmd == "damped" {
				var name string
				d.ScanArgs(t, "name", &name)
				return fmt.Sprintf("until=%s\n", at(m.DampedUntil(name)))
			}
			if d.Cmd == "inline" {
				var name string
				d.ScanArgs(t, "name", &name)
				return fmt.Sprintf("inline=%t\n", m.InLine(name))
			}
			if out, ok := queryRecords(t, m, d); ok {
				return out
			}
			if d.Cmd == "bound" {
				return fmt.Sprintf("hold=%v bound=%v\n", m.cfg.Hold(dur(t, d, "ttl")), m.cfg.LatencyBound(dur(t, d, "ttl")))
			}
			if d.Cmd == "campaign" {
				return campaign(t, m, d)
			}
			step(t, m, d)
			return render(m)
		})
	})
}

var origin = time.Unix(1_000_000, 0)

// at renders t as milliseconds from origin, or "none" for the zero time.
func at(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return strconv.FormatInt(t.Sub(origin).Milliseconds(), 10)
}

func ms(t *testing.T, d *datadriven.TestData, key string) time.Time {
	var v int
	d.ScanArgs(t, key, &v)
	return origin.Add(time.Duration(v) * time.Millisecond)
}

func dur(t *testing.T, d *datadriven.TestData, key string) time.Duration {
	var s string
	d.ScanArgs(t, key, &s)
	v, err := time.ParseDuration(s)
	if err != nil {
		d.Fatalf(t, "%s: %v", key, err)
	}
	return v
}

func scriptConfig(t *testing.T, d *datadriven.TestData) Config {
	var drift string
	d.ScanArgs(t, "drift", &drift)
	f, err := strconv.ParseFloat(drift, 64)
	if err != nil {
		d.Fatalf(t, "drift: %v", err)
	}
	cfg := Config{TTL: dur(t, d, "ttl"), Margin: dur(t, d, "margin"), Drift: f,
		RenewInterval: dur(t, d, "renew"), RetryInterval: dur(t, d, "retry")}
	scriptPolicies(t, d, &cfg)
	scriptRecords(t, d, &cfg)
	return cfg
}

// scriptPolicies reads the optional policy settings of a config line:
// nolead, priority=N, preempt=DUR (Preempt with PreemptAfter DUR),
// yield=DUR, and losses=N window=DUR penalty=DUR cap=DUR; queue (queue
// mode) and passfacts (PassFacts).
func scriptPolicies(t *testing.T, d *datadriven.TestData, cfg *Config) {
	cfg.NoLead = d.HasArg("nolead")
	cfg.Queue = d.HasArg("queue")
	cfg.PassFacts = d.HasArg("passfacts")
	d.MaybeScanArgs(t, "priority", &cfg.Priority)
	if d.HasArg("preempt") {
		cfg.Preempt, cfg.PreemptAfter = true, dur(t, d, "preempt")
	}
	optDur(t, d, "yield", &cfg.YieldTimeout)
	d.MaybeScanArgs(t, "losses", &cfg.Damping.Losses)
	optDur(t, d, "window", &cfg.Damping.Window)
	optDur(t, d, "penalty", &cfg.Damping.Penalty)
	optDur(t, d, "cap", &cfg.Damping.Cap)
}

func optDur(t *testing.T, d *datadriven.TestData, key string, v *time.Duration) {
	if d.HasArg(key) {
		*v = dur(t, d, key)
	}
}

// scriptRoster reads a roster, one candidate a line:
// SESSION [id=IDENTITY] [prio=N] [order=N] [joined=N] [queue=N] [wakes] [nolead] [damped] [request] [to=TARGET]
// [labels=K:V,...] [since=T].
// Joined is Order unless given.
func scriptRoster(t *testing.T, d *datadriven.TestData) []Candidate {
	var out []Candidate
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		c := Candidate{Session: f[0], MayLead: true}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "id":
				c.Identity = v
			case "prio":
				c.Priority, _ = strconv.Atoi(v)
			case "order":
				c.Order, _ = strconv.ParseUint(v, 10, 64)
			case "joined":
				c.Joined, _ = strconv.ParseUint(v, 10, 64)
			case "queue":
				c.Queue, _ = strconv.ParseUint(v, 10, 64)
			case "wakes":
				c.Wakes = true
			case "nolead":
				c.MayLead = false
			case "damped":
				c.Damped = true
			case "request":
				c.Request = true
			case "to":
				c.To = v
			case "labels", "since":
				scriptShown(&c, k, v)
			default:
				d.Fatalf(t, "roster: unknown field %q", kv)
			}
		}
		if c.Joined == 0 {
			c.Joined = c.Order
		}
		out = append(out, c)
	}
	return out
}

var scriptErrs = map[string]error{
	"exists":      backends.ErrKeyExists,
	"expired":     backends.ErrSessionExpired,
	"notfound":    backends.ErrNotFound,
	"compacted":   backends.ErrCompacted,
	"unavailable": backends.ErrUnavailable,
	"timeout":     errors.New("deadline exceeded after send"),
	"denied":      fmt.Errorf("%w: etcdserver: permission denied", backends.ErrPermission),
	"nocandidate": backends.ErrNoCandidate,
}

func scriptErr(t *testing.T, d *datadriven.TestData) error {
	if !d.HasArg("err") {
		return nil
	}
	var s string
	d.ScanArgs(t, "err", &s)
	if err, ok := scriptErrs[s]; ok {
		return err
	}
	d.Fatalf(t, "unknown err %q", s)
	return nil
}

func scriptRecord(t *testing.T, d *datadriven.TestData) backends.Record {
	var r backends.Record
	d.MaybeScanArgs(t, "token", &r.Token)
	d.MaybeScanArgs(t, "owner", &r.Owner)
	d.MaybeScanArgs(t, "rev", &r.Revision)
	if d.HasArg("value") {
		var v string
		d.ScanArgs(t, "value", &v)
		r.Value = []byte(v)
	}
	return r
}

func step(t *testing.T, m *Machine, d *datadriven.TestData) {
	var name string
	var op, epoch uint64
	d.MaybeScanArgs(t, "name", &name)
	d.MaybeScanArgs(t, "op", &op)
	d.MaybeScanArgs(t, "epoch", &epoch)
	now := ms(t, d, "t")
	if stepRecords(t, m, d, now, name, op, epoch) {
		return
	}
	switch d.Cmd {
	case "tick":
		m.Tick(now)
	case "cancel":
		m.Cancel(now, name)
	case "resign":
		m.Resign(now, name)
	case "session-created":
		var id string
		d.ScanArgs(t, "id", &id)
		m.SessionCreated(now, epoch, id, dur(t, d, "ttl"), ms(t, d, "sent"))
	case "session-failed":
		m.SessionFailed(now, epoch, scriptErr(t, d))
	case "renewed":
		m.Renewed(now, epoch, ms(t, d, "sent"))
	case "expired":
		m.Expired(now, epoch)
	case "renew-failed":
		m.RenewFailed(now, epoch, scriptErr(t, d))
	case "created":
		m.Created(now, name, op, scriptRecord(t, d), scriptErr(t, d))
	case "observed":
		m.Observed(now, name, op, scriptRecord(t, d), scriptErr(t, d))
	case "deleted":
		m.Deleted(now, name, op, scriptErr(t, d))
	case "roster":
		m.Roster(now, name, scriptRoster(t, d))
	case "handover":
		var to string
		d.MaybeScanArgs(t, "to", &to)
		m.HandOver(now, name, to)
	case "passed":
		m.Passed(now, name, op, scriptErr(t, d))
	case "enqueued":
		m.Enqueued(now, name, op, scriptRecord(t, d), scriptErr(t, d))
	case "ahead":
		m.AheadFound(now, name, op, scriptRecord(t, d), scriptErr(t, d))
	case "gone":
		m.Gone(now, name, op, scriptErr(t, d))
	case "woken":
		m.Woken(now, name, op, scriptRecord(t, d))
	case "seen":
		m.Seen(now, name, scriptRecord(t, d))
	case "dequeued":
		m.Dequeued(now, op, scriptErr(t, d))
	default:
		d.Fatalf(t, "unknown command %q", d.Cmd)
	}
}

// campaign runs a script's campaign as package lease does: refused while
// the machine says the election is busy. A campaign that is not a new
// one says how it began (resumed, after).
func campaign(t *testing.T, m *Machine, d *datadriven.TestData) string {
	var name string
	d.ScanArgs(t, "name", &name)
	if m.Busy(name) {
		return "busy\n"
	}
	switch m.Campaign(ms(t, d, "t"), name) {
	case Resumed:
		return "resumed\n" + render(m)
	case After:
		return "after\n" + render(m)
	}
	return render(m)
}

func render(m *Machine) string {
	var b strings.Builder
	for _, a := range m.Ready() {
		fmt.Fprintln(&b, scriptAction(a))
	}
	fmt.Fprintf(&b, "timer=%s deadline=%s\n", at(m.NextTimer()), at(m.Deadline()))
	return b.String()
}

// TestRetryJitter: a failed campaign call and a failed session creation
// are retried after Config.Jitter's wait, not RetryInterval's.
func TestRetryJitter(t *testing.T) {
	t0 := time.Unix(0, 0)
	cfg := Config{TTL: 2 * time.Second, Margin: 500 * time.Millisecond, RenewInterval: 600 * time.Millisecond,
		RetryInterval: 100 * time.Millisecond, Jitter: func(d time.Duration) time.Duration { return 3 * d }}
	m := New(cfg)
	m.Campaign(t0, "a")
	create := m.Ready()[0]
	m.SessionFailed(t0, create.Epoch, errors.New("down"))
	if got := m.NextTimer(); !got.Equal(t0.Add(300 * time.Millisecond)) {
		t.Fatalf("session retry at %v, want 300ms (the jittered wait)", got.Sub(t0))
	}
	m.Tick(t0.Add(300 * time.Millisecond))
	again := m.Ready()
	if len(again) != 1 || again[0].Kind != CreateSession {
		t.Fatalf("after the jittered wait: %v, want one create-session", again)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{TTL: 2 * time.Second, Margin: 500 * time.Millisecond, Drift: 0.01, RenewInterval: time.Second}
	for _, tc := range []struct {
		name string
		cfg  func(Config) Config
		want error
	}{
		{"ok", func(c Config) Config { return c }, nil},
		{"no hold", func(c Config) Config { c.Margin = c.TTL; return c }, ErrHoldTooShort},
		{"renew at hold", func(c Config) Config { c.RenewInterval = c.Hold(c.TTL); return c }, ErrRenewTooLate},
	} {
		if err := tc.cfg(ok).Validate(); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: Validate() = %v, want %v", tc.name, err, tc.want)
		}
	}
}
