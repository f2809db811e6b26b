package core

import (
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// scriptRecords reads the candidate-record settings of a config line:
// roster (Config.Roster), foldleave (Config.FoldLeave), sweep
// (Config.Sweep), and jitter=DUR,
// which makes every jittered retry wait DUR longer than RetryInterval.
func scriptRecords(t *testing.T, d *datadriven.TestData, cfg *Config) {
	cfg.Roster = d.HasArg("roster")
	cfg.FoldLeave = d.HasArg("foldleave")
	cfg.Sweep = d.HasArg("sweep")
	if d.HasArg("jitter") {
		extra := dur(t, d, "jitter")
		cfg.Jitter = func(d time.Duration) time.Duration { return d + extra }
	}
}

// stepRecords feeds the reports of candidate-record writes and session
// closes: joined, left (name, op, err), swept (name, op, the record
// read or err) and session-closed (epoch, err).
// It reports whether d was one of them.
func stepRecords(t *testing.T, m *Machine, d *datadriven.TestData, now time.Time, name string, op, epoch uint64) bool {
	switch d.Cmd {
	case "joined":
		m.Joined(now, name, op, scriptErr(t, d))
	case "left":
		m.Left(now, name, op, scriptErr(t, d))
	case "swept":
		m.Swept(now, name, op, scriptRecord(t, d), scriptErr(t, d))
	case "session-closed":
		m.SessionClosed(now, epoch, scriptErr(t, d))
	default:
		return false
	}
	return true
}

// queryRecords answers the queries recorded (name: Recorded) and
// closing (epoch: Closing), and reports whether d was one.
func queryRecords(t *testing.T, m *Machine, d *datadriven.TestData) (string, bool) {
	switch d.Cmd {
	case "recorded":
		var name string
		d.ScanArgs(t, "name", &name)
		return fmt.Sprintf("recorded=%t\n", m.Recorded(name)), true
	case "closing":
		var epoch uint64
		d.ScanArgs(t, "epoch", &epoch)
		return fmt.Sprintf("closing=%t\n", m.Closing(epoch)), true
	}
	return "", false
}

// scriptAction renders a for the scripts: a Join shows when its campaign
// first joined, in milliseconds from the scripts' origin.
func scriptAction(a Action) string {
	if a.Kind == Join {
		return fmt.Sprintf("%s joined=%s", a, at(a.Joined))
	}
	return a.String()
}
