package core

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// isListScript reports whether the script at path is TestList's.
func isListScript(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "list_") || strings.HasPrefix(base, "sends_")
}

// TestList runs the scripts testdata/list_*.txt and sends_*.txt on the
// succession order (List, Succession, Target) and on what an observer
// sends (LeaderSends, ListSends; one of each per script). Commands, with
// a roster as the input where one is read (see scriptRoster):
//   - list [leader=SESSION]: prints List of the roster;
//   - succession self=SESSION: prints Succession's sessions;
//   - target self=SESSION [to=NAME]: prints Target's session, or none;
//   - sends-leader [token=N] [value=V] [since=T]: prints what
//     LeaderSends.Next sends, or skip;
//   - sends-list [leader=SESSION]: prints the List that ListSends.Next
//     sends, or skip.
//
// Regenerate with: go test ./lease/internal/core -run TestList -rewrite
func TestList(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return !isListScript(p) })
	if len(paths) == 0 {
		t.Fatal("no list scripts")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var leader LeaderSends
			var list ListSends
			datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
				var self, to, at string
				d.MaybeScanArgs(t, "self", &self)
				d.MaybeScanArgs(t, "to", &to)
				d.MaybeScanArgs(t, "leader", &at)
				switch d.Cmd {
				case "list":
					return renderList(List(scriptRoster(t, d), at))
				case "succession":
					var b strings.Builder
					for _, c := range Succession(scriptRoster(t, d), self) {
						fmt.Fprintln(&b, c.Session)
					}
					return b.String()
				case "target":
					if c, ok := Target(scriptRoster(t, d), self, to); ok {
						return fmt.Sprintf("target=%s\n", c.Session)
					}
					return "none\n"
				case "sends-leader":
					return sendLeader(t, d, &leader)
				case "sends-list":
					l := List(scriptRoster(t, d), at)
					if !list.Next(l) {
						return "skip\n"
					}
					return "send\n" + renderList(l)
				}
				d.Fatalf(t, "unknown command %q", d.Cmd)
				return ""
			})
		})
	}
}

func sendLeader(t *testing.T, d *datadriven.TestData, s *LeaderSends) string {
	var v LeaderView
	d.MaybeScanArgs(t, "token", &v.Token)
	d.MaybeScanArgs(t, "value", &v.Value)
	if d.HasArg("since") {
		v.Since = ms(t, d, "since")
	}
	sent, ok := s.Next(v)
	if !ok {
		return "skip\n"
	}
	return fmt.Sprintf("send token=%d value=%q since=%s\n", sent.Token, sent.Value, at(sent.Since))
}

// renderList prints a list one candidate a line, with the fields that
// place it.
func renderList(l []Listed) string {
	var b strings.Builder
	for _, c := range l {
		fmt.Fprintf(&b, "%s id=%s prio=%d order=%d", c.Session, c.Identity, c.Priority, c.Order)
		for _, f := range []struct {
			on   bool
			name string
		}{{c.Leader, "leader"}, {c.Superseded, "superseded"}, {c.Damped, "damped"}, {!c.MayLead && !c.Request, "nolead"}, {c.Request, "request"}} {
			if f.on {
				b.WriteString(" " + f.name)
			}
		}
		if c.To != "" {
			fmt.Fprintf(&b, " to=%s", c.To)
		}
		if s := c.Shown; s != nil && len(s.Labels) > 0 {
			fmt.Fprintf(&b, " labels=%s", renderLabels(s.Labels))
		}
		if s := c.Shown; s != nil && !s.Since.IsZero() {
			fmt.Fprintf(&b, " since=%s", at(s.Since))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// scriptShown reads a roster line's labels=K:V,K:V or since=T into c.
func scriptShown(c *Candidate, key, v string) {
	if c.Shown == nil {
		c.Shown = &Shown{}
	}
	if key == "since" {
		n, _ := strconv.Atoi(v)
		c.Shown.Since = origin.Add(time.Duration(n) * time.Millisecond)
		return
	}
	c.Shown.Labels = make(map[string]string)
	for _, kv := range strings.Split(v, ",") {
		k, val, _ := strings.Cut(kv, ":")
		c.Shown.Labels[k] = val
	}
}

func renderLabels(m map[string]string) string {
	var kvs []string
	for k, v := range m {
		kvs = append(kvs, k+":"+v)
	}
	slices.Sort(kvs)
	return strings.Join(kvs, ",")
}
