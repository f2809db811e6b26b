package backends_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

func TestRecordDiffers(t *testing.T) {
	base := backends.Record{Election: "e", Value: []byte("a"), Token: 5, Owner: "s1", Revision: 7}
	for _, tc := range []struct {
		name string
		o    backends.Record
		want bool
	}{
		{"same", base, false},
		{"other revision and owner", backends.Record{Election: "e", Value: []byte("a"), Token: 5, Owner: "s2", Revision: 9}, false},
		{"other token", backends.Record{Value: []byte("a"), Token: 6}, true},
		{"other value", backends.Record{Value: []byte("b"), Token: 5}, true},
		{"absent", backends.Record{Revision: 7}, true},
	} {
		if got := base.Differs(tc.o); got != tc.want {
			t.Errorf("%s: Differs = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCanceled(t *testing.T) {
	if err := backends.Canceled(context.Background()); err != nil {
		t.Fatalf("Canceled(live ctx) = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := backends.Canceled(ctx)
	if !errors.Is(err, backends.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Canceled(canceled ctx) = %v, want ErrCanceled and context.Canceled", err)
	}
	dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer dcancel()
	if err := backends.Canceled(dctx); !errors.Is(err, backends.ErrCanceled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Canceled(expired ctx) = %v, want ErrCanceled and context.DeadlineExceeded", err)
	}
}

// TestCanceledAfter: a call cut short by its context names what the
// client saw, as text only, unless that is only the context's end.
func TestCanceledAfter(t *testing.T) {
	storeErr := fmt.Errorf("dial: %w", backends.ErrSessionExpired)
	if err := backends.CanceledAfter(context.Background(), storeErr); err != nil {
		t.Fatalf("CanceledAfter(live ctx) = %v, want nil", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	err := backends.CanceledAfter(ctx, storeErr)
	if !errors.Is(err, backends.ErrCanceled) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), storeErr.Error()) {
		t.Fatalf("CanceledAfter = %v, want ErrCanceled, DeadlineExceeded and the store error's text", err)
	}
	if errors.Is(err, backends.ErrSessionExpired) {
		t.Fatalf("CanceledAfter = %v wraps the store error's class", err)
	}
	if err := backends.CanceledAfter(ctx, fmt.Errorf("get: %w", context.DeadlineExceeded)); strings.Contains(err.Error(), "get") {
		t.Fatalf("CanceledAfter = %v, want no repeat of the context's end", err)
	}
}
