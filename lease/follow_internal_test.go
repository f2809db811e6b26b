package lease

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
)

// TestFollowerRun: the driver carries out a core.Follower's steps: a read
// after a transient error waits RetryInterval or more, a compaction reads
// again at once, every state read or waited for reaches seen, and a
// permanent error ends run with it.
func TestFollowerRun(t *testing.T) {
	const retry = 20 * time.Millisecond
	e := &LeaseElector{opts: Options{RetryInterval: retry, RequestTimeout: time.Second}}
	denied := fmt.Errorf("%w: test", backends.ErrPermission)
	var calls []string
	var failedAt, retriedAt time.Time
	reads := []func() (uint64, error){
		func() (uint64, error) { failedAt = time.Now(); return 0, backends.ErrUnavailable },
		func() (uint64, error) { retriedAt = time.Now(); return 1, nil },
		func() (uint64, error) { return 2, nil },
	}
	waits := []func(uint64) (uint64, error){
		func(uint64) (uint64, error) { return 0, backends.ErrCompacted },
		func(uint64) (uint64, error) { return 3, nil },
		func(uint64) (uint64, error) { return 0, denied },
	}
	fl := follower[uint64]{
		read: func(ctx context.Context) (uint64, error) {
			calls = append(calls, "read")
			r := reads[0]
			reads = reads[1:]
			return r()
		},
		wait: func(ctx context.Context, known uint64) (uint64, error) {
			calls = append(calls, fmt.Sprintf("wait %d", known))
			w := waits[0]
			waits = waits[1:]
			return w(known)
		},
	}
	var seen []uint64
	err := fl.run(t.Context(), e, func(k uint64) { seen = append(seen, k) })
	if !errors.Is(err, denied) {
		t.Fatalf("run: %v, want the permanent error", err)
	}
	want := []string{"read", "read", "wait 1", "read", "wait 2", "wait 3"}
	if !slices.Equal(calls, want) {
		t.Errorf("calls %q, want %q", calls, want)
	}
	if !slices.Equal(seen, []uint64{1, 2, 3}) {
		t.Errorf("seen %v, want [1 2 3]", seen)
	}
	if d := retriedAt.Sub(failedAt); d < retry {
		t.Errorf("retried after %v, want RetryInterval (%v) or more", d, retry)
	}
}

// TestFollowerRunEnds: run returns nil when its context ends, during a
// wait as during the pause before a retry.
func TestFollowerRunEnds(t *testing.T) {
	e := &LeaseElector{opts: Options{RetryInterval: time.Hour, RequestTimeout: time.Second}}
	for _, name := range []string{"wait", "pause"} {
		ctx, cancel := context.WithCancel(t.Context())
		fl := follower[uint64]{
			read: func(context.Context) (uint64, error) {
				if name == "pause" { // an hour's pause, which ctx's end cuts short
					time.AfterFunc(10*time.Millisecond, cancel)
					return 0, backends.ErrUnavailable
				}
				return 1, nil
			},
			wait: func(ctx context.Context, _ uint64) (uint64, error) {
				cancel()
				<-ctx.Done()
				return 0, ctx.Err()
			},
		}
		if err := fl.run(ctx, e, func(uint64) {}); err != nil {
			t.Errorf("%s: run: %v, want nil at the end of ctx", name, err)
		}
	}
}

// TestFollowerRunOlder: with older set, a wait's answer older than the
// state known never reaches seen: the driver reads afresh at once, and
// shows what the read finds. (Observe sets it: an observer never goes
// back to a state it has moved past.)
func TestFollowerRunOlder(t *testing.T) {
	e := &LeaseElector{opts: Options{RetryInterval: time.Hour, RequestTimeout: time.Second}}
	denied := fmt.Errorf("%w: test", backends.ErrPermission)
	var calls []string
	reads := []uint64{10, 11}
	waits := []uint64{8, 0}
	fl := follower[uint64]{
		read: func(context.Context) (uint64, error) {
			calls = append(calls, "read")
			r := reads[0]
			reads = reads[1:]
			return r, nil
		},
		wait: func(_ context.Context, known uint64) (uint64, error) {
			calls = append(calls, fmt.Sprintf("wait %d", known))
			w := waits[0]
			waits = waits[1:]
			if w == 0 {
				return 0, denied
			}
			return w, nil
		},
		older: func(known, got uint64) bool { return got < known },
	}
	var seen []uint64
	if err := fl.run(t.Context(), e, func(k uint64) { seen = append(seen, k) }); !errors.Is(err, denied) {
		t.Fatalf("run: %v, want the permanent error", err)
	}
	if want := []string{"read", "wait 10", "read", "wait 11"}; !slices.Equal(calls, want) {
		t.Errorf("calls %q, want %q", calls, want)
	}
	if !slices.Equal(seen, []uint64{10, 11}) {
		t.Errorf("seen %v, want [10 11]: the stale 8 shown", seen)
	}
}
