package lease

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// TestCloseAfterRunQuiet: a waiting candidate whose Run ends just before
// Close, as `leasehold run` does on SIGTERM, logs nothing at warn or
// above: the queue entry and candidate record whose removal Close cuts
// short go with the session Close closes, which the test checks too.
func TestCloseAfterRunQuiet(t *testing.T) {
	store := embeddedStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	holder, err := New(store, Options{TTL: 5 * time.Second, Identity: "holder"})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	if _, err := holder.Campaign(ctx, "quiet"); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		tap := &levelTap{}
		w, err := New(store, Options{TTL: 5 * time.Second, Identity: "waiter", Logger: slog.New(tap)})
		if err != nil {
			t.Fatal(err)
		}
		rctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			done <- w.Run(rctx, "quiet", func(context.Context, *Leadership) error { return nil })
		}()
		awaitCandidates(t, ctx, holder, "quiet", 2)
		stop()
		if err := <-done; err != nil && rctx.Err() == nil {
			t.Fatalf("round %d: Run: %v", round, err)
		}
		if err := w.Close(ctx); err != nil {
			t.Fatalf("round %d: Close: %v", round, err)
		}
		if got := tap.loud(); len(got) > 0 {
			t.Fatalf("round %d: Close after Run logged %q at warn or above", round, got)
		}
		awaitCandidates(t, ctx, holder, "quiet", 1)
	}
}

// awaitCandidates waits until e lists n candidates in election.
func awaitCandidates(t *testing.T, ctx context.Context, e *LeaseElector, election string, n int) {
	t.Helper()
	ch, err := e.ObserveCandidates(ctx, election)
	if err != nil {
		t.Fatal(err)
	}
	var last []Candidate
	for cs := range ch {
		if last = cs; len(cs) == n {
			return
		}
	}
	t.Fatalf("%s: %d candidates listed when the wait ended, want %d", election, len(last), n)
}

// levelTap keeps the messages logged at warn or above.
type levelTap struct {
	mu   sync.Mutex
	msgs []string
}

func (h *levelTap) Enabled(context.Context, slog.Level) bool { return true }
func (h *levelTap) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *levelTap) WithGroup(string) slog.Handler            { return h }

func (h *levelTap) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		h.mu.Lock()
		h.msgs = append(h.msgs, r.Message)
		h.mu.Unlock()
	}
	return nil
}

func (h *levelTap) loud() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.msgs...)
}
