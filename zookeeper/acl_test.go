package zookeeper

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// chanHandler is a slog.Handler that sends each record's message and
// attributes, as one line, on a channel.
type chanHandler struct{ ch chan string }

func (h chanHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h chanHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h chanHandler) WithGroup(string) slog.Handler            { return h }
func (h chanHandler) Handle(_ context.Context, r slog.Record) error {
	line := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
	select {
	case h.ch <- line:
	default:
	}
	return nil
}

// TestOpenPrefixWarning: a Store with credentials warns on its Logger when
// Prefix exists with an ACL that lets anyone delete its children (as one
// an older version made), and says nothing when Prefix is protected.
func TestOpenPrefixWarning(t *testing.T) {
	servers, tick := testServers(t)
	raw, _, err := zk.Connect(servers, 4*time.Second, zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	open, closed := uniqueName("/leasehold-open-"), uniqueName("/leasehold-closed-")
	alice := []Auth{{Scheme: "digest", Credentials: []byte("alice:pw")}}
	_ = raw.AddAuth("digest", []byte("alice:pw"))
	t.Cleanup(func() { removeTree(t, servers, alice, open); removeTree(t, servers, alice, closed) })
	if _, err := raw.Create(open, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Create(closed, nil, 0, defaultACL(alice, false)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		prefix string
		warn   bool
	}{{open, true}, {closed, false}} {
		logs := make(chan string, 100)
		s, err := New(servers, Options{TickTime: tick, Prefix: c.prefix, Auth: alice,
			Logger: slog.New(chanHandler{logs}), ConnOptions: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		if c.warn {
			select {
			case line := <-logs:
				if !strings.Contains(line, "WARN") || !strings.Contains(line, c.prefix) || !strings.Contains(line, "world:anyone:cdrwa") {
					t.Errorf("log line %q, want a warning naming %s and world:anyone:cdrwa", line, c.prefix)
				}
			case <-time.After(20 * time.Second):
				t.Errorf("no warning within 20s for the open prefix %s", c.prefix)
			}
		}
		s.Close() // waits for the check
		close(logs)
		for line := range logs {
			if strings.Contains(line, "Prefix") {
				t.Errorf("unexpected warning for %s: %s", c.prefix, line)
			}
		}
	}
}
