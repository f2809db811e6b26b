package zookeeper

import (
	"bytes"
	"context"
	"log"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// triedAll waits until go-zookeeper has been through every server of the
// Store's own connection, having logged its failures to connect.
func triedAll(t *testing.T, s *store) {
	t.Helper()
	select {
	case <-s.read.tried:
	case <-time.After(10 * time.Second):
		t.Fatal("go-zookeeper did not try the servers within 10s")
	}
}

// TestQuietByDefault: without Options.Logger, go-zookeeper's lines go
// nowhere (its default logger writes to the standard log package).
func TestQuietByDefault(t *testing.T) {
	var std syncBuffer
	log.SetOutput(&std)
	t.Cleanup(func() { log.SetOutput(nil) })
	s, err := New([]string{unreachable}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	triedAll(t, storeOf(s))
	s.Close()
	log.SetOutput(nil)
	if out := std.String(); out != "" {
		t.Fatalf("the standard logger got go-zookeeper's lines:\n%s", out)
	}
}

// TestLoggerGetsGoZooKeeperLines: with Options.Logger, a failure to
// connect is logged there at Warn, marked as go-zookeeper's.
func TestLoggerGetsGoZooKeeperLines(t *testing.T) {
	var out syncBuffer
	l := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := New([]string{unreachable}, Options{Logger: l})
	if err != nil {
		t.Fatal(err)
	}
	triedAll(t, storeOf(s))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _ = storeOf(s).NewSession(ctx, 4*time.Second)
	s.Close()
	got := out.String()
	if !strings.Contains(got, "level=WARN") || !strings.Contains(got, "failed to connect to "+unreachable) ||
		!strings.Contains(got, "component=go-zookeeper") {
		t.Fatalf("Logger got:\n%s\nwant a WARN line of go-zookeeper's failure to connect to %s", got, unreachable)
	}
}
