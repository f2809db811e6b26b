package etcd_test

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
)

// serverLog is a zap core on an embedded server's log that counts, by
// user, the auth tokens the server gave out and those it dropped as
// lapsed, and the requests it refused for an invalid auth token.
type serverLog struct {
	mu           sync.Mutex
	got, dropped map[string]int
	refused      int
	changed      chan struct{} // a count changed
}

// The server's messages that serverLog counts.
const (
	msgAuthenticated = "authenticated a user"
	msgDropped       = "deleted a simple token"
	msgRefused       = "invalid auth token"
)

func (l *serverLog) tokens(user string) (got, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.got[user], l.dropped[user]
}

func (l *serverLog) refusals() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.refused
}

// await returns once cond holds, checked at each change of the counts; it
// fails t if cond does not hold within d.
func (l *serverLog) await(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.After(d)
	for !cond() {
		select {
		case <-l.changed:
		case <-deadline:
			t.Fatalf("server log: condition not met within %v", d)
		}
	}
}

func (l *serverLog) Enabled(zapcore.Level) bool        { return true }
func (l *serverLog) With([]zapcore.Field) zapcore.Core { return l }
func (l *serverLog) Sync() error                       { return nil }

func (l *serverLog) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	switch e.Message {
	case msgAuthenticated, msgDropped, msgRefused:
		return ce.AddCore(e, l)
	}
	return ce
}

func (l *serverLog) Write(e zapcore.Entry, fields []zapcore.Field) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.notify()
	if e.Message == msgRefused {
		l.refused++
		return nil
	}
	for _, f := range fields {
		if f.Key != "user-name" {
			continue
		}
		if e.Message == msgAuthenticated {
			l.got[f.String]++
		} else {
			l.dropped[f.String]++
		}
	}
	return nil
}

func (l *serverLog) notify() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}
