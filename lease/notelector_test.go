package lease_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/leasehold/leasehold/lease"
)

// TestNotElector: every exported method of a LeaseElector that New did
// not make (its zero value, or nil) returns an error wrapping
// ErrNotElector and ErrClosed, or its zero answer, and never panics. A
// method added to LeaseElector without a case here fails the test.
func TestNotElector(t *testing.T) {
	electors := map[string]*lease.LeaseElector{"zero": new(lease.LeaseElector), "nil": nil}
	for name, e := range electors {
		t.Run(name, func(t *testing.T) {
			cases := notElectorCases(e)
			typ := reflect.TypeFor[*lease.LeaseElector]()
			for i := range typ.NumMethod() {
				if _, ok := cases[typ.Method(i).Name]; !ok {
					t.Errorf("no case for LeaseElector.%s", typ.Method(i).Name)
				}
			}
			for method, call := range cases {
				t.Run(method, func(t *testing.T) {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("panicked: %v", p)
						}
					}()
					if err := call(); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}

// notElectorCases calls each exported method of e and says what was
// wrong with its answer.
func notElectorCases(e *lease.LeaseElector) map[string]func() error {
	ctx := context.Background()
	const el = "jobs"
	return map[string]func() error{
		"Campaign":   func() error { _, err := e.Campaign(ctx, el); return wantNotElector(err) },
		"Run":        func() error { return wantNotElector(e.Run(ctx, el, nil)) },
		"Close":      func() error { return wantNotElector(e.Close(ctx)) },
		"Leader":     func() error { _, err := e.Leader(ctx, el); return wantNotElector(err) },
		"Observe":    func() error { _, err := e.Observe(ctx, el); return wantNotElector(err) },
		"Candidates": func() error { _, err := e.Candidates(ctx, el); return wantNotElector(err) },
		"ObserveCandidates": func() error {
			_, err := e.ObserveCandidates(ctx, el)
			return wantNotElector(err)
		},
		"RequestHandover": func() error {
			_, err := e.RequestHandover(ctx, el, "")
			return wantNotElector(err)
		},
		"AwaitSession": func() error { _, err := e.AwaitSession(ctx); return wantNotElector(err) },
		"Identity":     func() error { return wantZero(e.Identity()) },
		"SessionID":    func() error { return wantZero(e.SessionID()) },
		"Options":      func() error { return wantZero(e.Options()) },
		"Healthz":      func() error { return wantStatus(e.Healthz(0), http.StatusInternalServerError) },
		"Readyz":       func() error { return wantStatus(e.Readyz(), http.StatusServiceUnavailable) },
	}
}

func wantNotElector(err error) error {
	if !errors.Is(err, lease.ErrNotElector) || !errors.Is(err, lease.ErrClosed) {
		return errors.New("got error " + errString(err) + ", want one wrapping ErrNotElector and ErrClosed")
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func wantZero[T any](v T) error {
	if !reflect.ValueOf(&v).Elem().IsZero() {
		return errors.New("got a non-zero answer, want the zero value")
	}
	return nil
}

func wantStatus(h http.Handler, code int) error {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != code || !strings.Contains(rec.Body.String(), lease.ErrNotElector.Error()) {
		return errors.New("answered " + rec.Result().Status + ": " + rec.Body.String())
	}
	return nil
}
