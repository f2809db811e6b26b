package history

import (
	"strings"
	"testing"
	"time"
)

const ms = Time(time.Millisecond)

var cfg = Config{Drift: 10 * time.Millisecond, Recovery: 3 * time.Second}

func lead(at Time, c string, tok uint64) Event {
	return Event{Kind: Lead, At: at, Candidate: c, Token: tok}
}
func unlead(at Time, c string, tok uint64) Event {
	return Event{Kind: Unlead, At: at, Candidate: c, Token: tok}
}
func write(sent, at Time, c string, tok uint64, guard string, ok bool) Event {
	return Event{Kind: Write, At: at, Sent: sent, Candidate: c, Token: tok, Guard: guard, Accepted: ok}
}
func fault(at Time, name, target string) Event {
	return Event{Kind: Fault, At: at, Fault: name, Candidate: target}
}
func heal(at Time, name string) Event { return Event{Kind: Heal, At: at, Fault: name} }

// TestFaultStatsSurvived: a leadership that outlives its fault and ends in
// the next one counts for the next one only.
func TestFaultStatsSurvived(t *testing.T) {
	r := Check([]Event{lead(0, "a", 5), fault(10*ms, "latency-low", "a"), heal(100*ms, "latency-low"),
		fault(200*ms, "cut", "a"), unlead(1200*ms, "a", 5), heal(1300*ms, "cut"), lead(2200*ms, "b", 6)}, cfg)
	if len(r.Faults) != 2 || r.Faults[0].Stop != -1 || r.Faults[0].NewLeader != -1 ||
		r.Faults[1].Stop != time.Second || r.Faults[1].NewLeader != 2*time.Second {
		t.Fatalf("fault stats %+v, want the first fault survived and the cut measured", r.Faults)
	}
}

// TestFaultStatsLateLead: a fault aimed at a holder that records its Lead
// just after the fault began is still measured against that leadership.
func TestFaultStatsLateLead(t *testing.T) {
	r := Check([]Event{fault(0, "cut", "a"), lead(2*ms, "a", 5), unlead(1000*ms, "a", 5),
		{Kind: Heal, At: 3000 * ms, Fault: "cut", Candidate: "a"}, lead(2500*ms, "b", 6)}, cfg)
	if len(r.Faults) != 1 || r.Faults[0].Stop != time.Second || r.Faults[0].NewLeader != 2500*time.Millisecond {
		t.Fatalf("fault stats %+v, want stop 1s, new leader 2.5s", r.Faults)
	}
}

// good is a clean hand-over after a link cut: a stops, b leads later, a's
// late writes are refused by both guards.
func good() []Event {
	return []Event{
		lead(100*ms, "a", 5),
		write(110*ms, 111*ms, "a", 5, GuardFence, true),
		write(110*ms, 112*ms, "a", 5, GuardStore, true),
		fault(200*ms, "cut", "a"),
		unlead(1200*ms, "a", 5),
		heal(1500*ms, "cut"),
		lead(2200*ms, "b", 8),
		write(2210*ms, 2211*ms, "b", 8, GuardFence, true),
		write(2220*ms, 2221*ms, "a", 5, GuardFence, false),
		write(2220*ms, 2222*ms, "a", 5, GuardStore, false),
	}
}

func checks(r Report) string {
	var s []string
	for _, v := range r.Violations {
		s = append(s, v.Check)
	}
	return strings.Join(s, ",")
}

func TestCleanHistoryPasses(t *testing.T) {
	r := Check(good(), cfg)
	if len(r.Violations) != 0 {
		t.Fatalf("violations in a clean history: %v", r.Violations)
	}
	if len(r.Leaderships) != 2 || r.Writes[GuardFence] != (WriteCount{2, 1}) || r.Writes[GuardStore] != (WriteCount{1, 1}) {
		t.Fatalf("report %+v", r)
	}
	if len(r.Faults) != 1 || r.Faults[0].Stop != time.Second || r.Faults[0].NewLeader != 2*time.Second {
		t.Fatalf("fault stats %+v, want stop 1s, new leader 2s", r.Faults)
	}
}

// Each of these histories must fail exactly the check it names.
func TestViolations(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		evs        []Event
	}{
		{"token repeats", CheckTokens, []Event{lead(0, "a", 5), unlead(10*ms, "a", 5), lead(20*ms, "b", 5), unlead(30*ms, "b", 5)}},
		{"token goes back", CheckTokens, []Event{lead(0, "a", 5), unlead(10*ms, "a", 5), lead(20*ms, "b", 4), unlead(30*ms, "b", 4)}},
		{"overlap beyond drift", CheckOverlap, []Event{lead(0, "a", 5), lead(100*ms, "b", 6), unlead(111*ms, "a", 5), unlead(200*ms, "b", 6)}},
		{"open interval overlaps", CheckOverlap, []Event{lead(0, "a", 5), lead(100*ms, "b", 6), unlead(200*ms, "b", 6)}},
		{"fence accepts stale", CheckStale, []Event{
			lead(0, "a", 5), unlead(10*ms, "a", 5), lead(20*ms, "b", 6),
			write(30*ms, 31*ms, "b", 6, GuardFence, true),
			write(40*ms, 41*ms, "a", 5, GuardFence, true), unlead(50*ms, "b", 6)}},
		{"store accepts stale", CheckStale, []Event{
			lead(0, "a", 5), unlead(10*ms, "a", 5), lead(20*ms, "b", 6),
			write(40*ms, 41*ms, "a", 5, GuardStore, true), unlead(50*ms, "b", 6)}},
		{"no leader after heal", CheckRecovery, []Event{
			lead(0, "a", 5), fault(10*ms, "cut", "a"), unlead(20*ms, "a", 5), heal(100*ms, "cut"),
			lead(100*ms+Time(cfg.Recovery)+ms, "b", 6)}},
		{"paused leader writes after the successor began", CheckLate, []Event{
			lead(0, "a", 5), {Kind: Pause, At: 10 * ms, Candidate: "a"}, lead(3000*ms, "b", 6),
			write(3100*ms, 3101*ms, "a", 5, GuardFence, false), unlead(3102*ms, "a", 5), unlead(4000*ms, "b", 6)}},
		{"leader writes just after the successor began", CheckLate, []Event{
			lead(0, "a", 5), lead(100*ms, "b", 6), write(101*ms, 102*ms, "a", 5, GuardStore, false),
			unlead(105*ms, "a", 5), unlead(200*ms, "b", 6)}},
		{"only a paused leader after heal", CheckRecovery, []Event{
			lead(0, "a", 5), {Kind: Pause, At: 10 * ms, Candidate: "a"}, heal(100*ms, "pause"),
			unlead(5000*ms, "a", 5)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checks(Check(tc.evs, cfg)); got != tc.want {
				t.Fatalf("violations %q, want exactly %q", got, tc.want)
			}
		})
	}
}

// Histories that look alarming but break no rule.
func TestNotViolations(t *testing.T) {
	for _, tc := range []struct {
		name string
		evs  []Event
	}{
		{"overlap within drift", []Event{lead(0, "a", 5), lead(100*ms, "b", 6), unlead(105*ms, "a", 5), unlead(200*ms, "b", 6)}},
		{"paused leader overlaps", []Event{
			lead(0, "a", 5), {Kind: Pause, At: 10 * ms, Candidate: "a"}, lead(3000*ms, "b", 6),
			unlead(3102*ms, "a", 5), unlead(4000*ms, "b", 6)}},
		{"paused leader straggles after it stopped", []Event{
			lead(0, "a", 5), {Kind: Pause, At: 10 * ms, Candidate: "a"}, lead(3000*ms, "b", 6),
			unlead(3100*ms, "a", 5), write(3101*ms, 3102*ms, "a", 5, GuardFence, false), unlead(4000*ms, "b", 6)}},
		{"crash ends the interval", []Event{lead(0, "a", 5), {Kind: Crash, At: 10 * ms, Candidate: "a"}, lead(2000*ms, "b", 6)}},
		{"in-flight write lands before the successor's", []Event{
			lead(0, "a", 5), write(9*ms, 30*ms, "a", 5, GuardStore, true), unlead(10*ms, "a", 5),
			lead(20*ms, "b", 6), write(25*ms, 26*ms, "a", 5, GuardFence, true)}},
		{"leader survives the fault", []Event{lead(0, "a", 5), fault(10*ms, "latency", "a"), heal(100*ms, "latency")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := Check(tc.evs, cfg); len(r.Violations) != 0 {
				t.Fatalf("violations %v, want none", r.Violations)
			}
		})
	}
}

// A fault named in FaultRecovery gets that much more time after its heal;
// other faults do not.
func TestFaultRecovery(t *testing.T) {
	c := cfg
	c.FaultRecovery = map[string]time.Duration{"store-restart": 2 * time.Second}
	late := 100*ms + Time(cfg.Recovery) + 500*ms // after Recovery, within Recovery + 2 s
	for _, tc := range []struct {
		fault string
		want  int
	}{{"store-restart", 0}, {"cut", 1}} {
		evs := []Event{lead(0, "a", 5), fault(10*ms, tc.fault, "a"), unlead(20*ms, "a", 5), heal(100*ms, tc.fault), lead(late, "b", 6)}
		if got := len(Check(evs, c).Violations); got != tc.want {
			t.Errorf("%s healed, leader %v later: %d violations, want %d", tc.fault, time.Duration(late-100*ms), got, tc.want)
		}
	}
}
