package lease_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
)

func status(h http.Handler) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	return rec.Code
}

// TestHealthHandlers: readiness follows the session; liveness fails only
// for a leader past its renewal deadline (here forced with a tolerance
// below zero, which puts "now" past the deadline).
func TestHealthHandlers(t *testing.T) {
	store, stop := newStore()
	defer stop()
	e, err := lease.New(store, lease.Options{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	if c := status(e.Readyz()); c != http.StatusServiceUnavailable {
		t.Fatalf("readyz before any session: %d, want 503", c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.AwaitSession(ctx); err != nil {
		t.Fatal(err)
	}
	if c := status(e.Readyz()); c != http.StatusOK {
		t.Fatalf("readyz with a session: %d, want 200", c)
	}
	if c := status(e.Healthz(-time.Hour)); c != http.StatusOK {
		t.Fatalf("healthz of a non-leader: %d, want 200", c)
	}
	l, err := e.Campaign(ctx, "jobs/health")
	if err != nil {
		t.Fatal(err)
	}
	if c := status(e.Healthz(time.Second)); c != http.StatusOK {
		t.Fatalf("healthz of a renewing leader: %d, want 200", c)
	}
	if c := status(e.Healthz(-time.Hour)); c != http.StatusInternalServerError {
		t.Fatalf("healthz of a leader past deadline+tolerance: %d, want 500", c)
	}
	_ = l.Resign(ctx)
	if c := status(e.Healthz(-time.Hour)); c != http.StatusOK {
		t.Fatalf("healthz after resigning: %d, want 200", c)
	}
}
