package core

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// isFollowScript reports whether the script at path is a follower's.
func isFollowScript(path string) bool {
	return strings.HasPrefix(filepath.Base(path), "follow_")
}

// TestFollow runs the scripts testdata/follow_*.txt on a Follower whose
// known state is a revision. Commands, at time t (milliseconds from
// origin):
//   - follow retry=DUR [jitter=DUR] [older]: a new Follower; the jitter,
//     if given, is added to every retry's wait; with older, a wait's
//     answer below the known revision is older (Follower.Older);
//   - next t=N: prints the step Next returns;
//   - done t=N op=N [rev=N] [err=E]: reports a step's outcome and prints
//     whether it was taken as the known state.
//
// Regenerate with: go test ./lease/internal/core -run TestFollow -rewrite
func TestFollow(t *testing.T) {
	paths, err := filepath.Glob("testdata/follow_*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no follower scripts: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var f *Follower[uint64]
			datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
				if d.Cmd == "follow" {
					f = NewFollower[uint64](followConfig(t, d))
					if d.HasArg("older") {
						f.Older(func(known, got uint64) bool { return got < known })
					}
					return ""
				}
				if f == nil {
					d.Fatalf(t, "follow must come first")
				}
				return followStep(t, f, d)
			})
		})
	}
}

func followConfig(t *testing.T, d *datadriven.TestData) Config {
	cfg := Config{RetryInterval: dur(t, d, "retry")}
	if d.HasArg("jitter") {
		j := dur(t, d, "jitter")
		cfg.Jitter = func(d time.Duration) time.Duration { return d + j }
	}
	return cfg
}

func followStep(t *testing.T, f *Follower[uint64], d *datadriven.TestData) string {
	now := ms(t, d, "t")
	switch d.Cmd {
	case "next":
		return renderFollow(f.Next(now))
	case "done":
		var op, rev uint64
		d.ScanArgs(t, "op", &op)
		d.MaybeScanArgs(t, "rev", &rev)
		if f.Done(now, op, rev, scriptErr(t, d)) {
			return "known\n"
		}
		return "not known\n"
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func renderFollow(s FollowStep[uint64]) string {
	switch s.Kind {
	case FollowRead:
		return fmt.Sprintf("read op=%d\n", s.Op)
	case FollowWait:
		return fmt.Sprintf("wait op=%d rev=%d\n", s.Op, s.Known)
	case FollowPause:
		return fmt.Sprintf("pause until=%s\n", at(s.At))
	case FollowStop:
		return fmt.Sprintf("stop err=%q\n", s.Err)
	}
	return fmt.Sprintf("kind %d?\n", s.Kind)
}
