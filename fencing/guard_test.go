package fencing

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// wantStale fails t unless err is a *StaleError for tok with highest h.
func wantStale(t *testing.T, err error, tok, h Token) {
	t.Helper()
	var se *StaleError
	if !errors.As(err, &se) || !errors.Is(err, ErrStale) {
		t.Fatalf("got %v, want stale error for %d", err, tok)
	}
	if se.Token != tok || se.Highest != h {
		t.Fatalf("got StaleError{Token: %d, Highest: %d}, want {%d, %d}", se.Token, se.Highest, tok, h)
	}
}

func TestGuardZeroValue(t *testing.T) {
	var g Guard
	if h := g.Highest(); h != 0 {
		t.Fatalf("zero Guard Highest() = %d, want 0", h)
	}
	if err := g.Admit(1); err != nil {
		t.Fatalf("zero Guard Admit(1) = %v", err)
	}
	if h := g.Highest(); h != 1 {
		t.Fatalf("Highest() = %d, want 1", h)
	}
}

func TestGuardOrdering(t *testing.T) {
	var g Guard
	steps := []struct {
		tok   Token
		stale bool
		high  Token // Highest() after the step
	}{
		{3, false, 3},
		{7, false, 7},
		{5, true, 7},
		{1, true, 7},
		{8, false, 8},
		{7, true, 8},
		{1 << 63, false, 1 << 63},
		{8, true, 1 << 63},
	}
	for i, s := range steps {
		err := g.Admit(s.tok)
		if s.stale {
			wantStale(t, err, s.tok, steps[i-1].high)
		} else if err != nil {
			t.Fatalf("step %d: Admit(%d) = %v, want nil", i, s.tok, err)
		}
		if h := g.Highest(); h != s.high {
			t.Fatalf("step %d: Highest() = %d, want %d", i, h, s.high)
		}
	}
}

func TestGuardEqualTokens(t *testing.T) {
	var g Guard
	for i := range 5 {
		if err := g.Admit(4); err != nil {
			t.Fatalf("Admit(4) #%d = %v, want nil", i, err)
		}
		if err := g.Do(4, func() error { return nil }); err != nil {
			t.Fatalf("Do(4) #%d = %v, want nil", i, err)
		}
	}
	if h := g.Highest(); h != 4 {
		t.Fatalf("Highest() = %d, want 4", h)
	}
}

func TestGuardZeroToken(t *testing.T) {
	for _, start := range []Token{0, 6} {
		g := NewGuard(start)
		if err := g.Admit(0); err != ErrNoToken {
			t.Errorf("NewGuard(%d).Admit(0) = %v, want ErrNoToken", start, err)
		}
		ran := false
		if err := g.Do(0, func() error { ran = true; return nil }); err != ErrNoToken {
			t.Errorf("NewGuard(%d).Do(0) = %v, want ErrNoToken", start, err)
		}
		if ran {
			t.Errorf("NewGuard(%d).Do(0) ran fn", start)
		}
		if h := g.Highest(); h != start {
			t.Errorf("Highest() after zero token = %d, want %d", h, start)
		}
	}
}

func TestNewGuard(t *testing.T) {
	g := NewGuard(10)
	if h := g.Highest(); h != 10 {
		t.Fatalf("NewGuard(10).Highest() = %d", h)
	}
	wantStale(t, g.Admit(9), 9, 10)
	if err := g.Admit(10); err != nil {
		t.Fatalf("Admit(10) after NewGuard(10) = %v", err)
	}
	if err := g.Admit(11); err != nil {
		t.Fatalf("Admit(11) = %v", err)
	}
	wantStale(t, g.Admit(10), 10, 11)

	if h := NewGuard(0).Highest(); h != 0 {
		t.Fatalf("NewGuard(0).Highest() = %d", h)
	}
	if err := NewGuard(0).Admit(1); err != nil {
		t.Fatalf("NewGuard(0).Admit(1) = %v", err)
	}
}

func TestGuardDo(t *testing.T) {
	g := NewGuard(5)

	ran := false
	err := g.Do(4, func() error { ran = true; return nil })
	wantStale(t, err, 4, 5)
	if ran {
		t.Fatal("Do ran fn for a stale token")
	}

	var seen Token
	if err := g.Do(6, func() error {
		seen = g.Highest() // must not deadlock
		if g.mu.TryLock() {
			g.mu.Unlock()
			t.Error("fn ran without the guard's lock held")
		}
		return nil
	}); err != nil {
		t.Fatalf("Do(6) = %v", err)
	}
	if seen != 6 {
		t.Fatalf("Highest() inside fn = %d, want 6 (raised before fn)", seen)
	}

	if err := g.Do(7, nil); err != nil || g.Highest() != 7 {
		t.Fatalf("Do(7, nil) = %v, Highest() = %d; want nil, 7", err, g.Highest())
	}
}

func TestGuardDoFnErrorStillRaises(t *testing.T) {
	var g Guard
	boom := errors.New("boom")
	if err := g.Do(8, func() error { return boom }); err != boom {
		t.Fatalf("Do returned %v, want fn's error", err)
	}
	if h := g.Highest(); h != 8 {
		t.Fatalf("Highest() after failed fn = %d, want 8", h)
	}
	wantStale(t, g.Admit(7), 7, 8)
}

func TestGuardDoPanicReleasesLock(t *testing.T) {
	var g Guard
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want boom", r)
			}
		}()
		_ = g.Do(3, func() error { panic("boom") })
	}()
	if !g.mu.TryLock() {
		t.Fatal("lock still held after fn panicked")
	}
	g.mu.Unlock()
	if h := g.Highest(); h != 3 {
		t.Fatalf("Highest() after panic = %d, want 3", h)
	}
}

// TestGuardConcurrent runs Admit and Do from many goroutines with random,
// roughly increasing tokens, so that many are admitted and many are stale. Do records each admitted token inside fn; the
// recorded sequence must never go down. An observer checks that Highest()
// never goes down, and every result must be consistent with the final state.
func TestGuardConcurrent(t *testing.T) {
	const workers = 32
	const ops = 1000
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	var g Guard
	var seq []Token // appended only inside Do's fn, so under g's lock

	done := make(chan struct{})
	observed := make(chan error, 1)
	go func() {
		var last Token
		for {
			select {
			case <-done:
				observed <- nil
				return
			default:
			}
			h := g.Highest()
			if h < last {
				observed <- fmt.Errorf("Highest() went down from %d to %d", last, h)
				return
			}
			last = h
			runtime.Gosched()
		}
	}()

	type result struct {
		max      Token // highest token this worker got admitted
		rejected []Token
	}
	results := make([]result, workers)
	var clock atomic.Uint64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			res := &results[w]
			for range ops {
				// Tokens follow global progress, with jitter so that
				// some arrive late and are stale.
				tok := Token(clock.Add(1)/2 + r.Uint64N(16) + 1)
				before := g.Highest()
				var err error
				if w%2 == 0 {
					err = g.Do(tok, func() error {
						if h := g.Highest(); h != tok {
							t.Errorf("inside Do(%d): Highest() = %d", tok, h)
						}
						seq = append(seq, tok)
						return nil
					})
				} else {
					err = g.Admit(tok)
				}
				// Highest never goes down, and an admitted token is
				// reflected in it at once.
				after := g.Highest()
				if after < before || (err == nil && after < tok) {
					t.Errorf("Highest() was %d, then %d after admitting %d (err %v)", before, after, tok, err)
				}
				var se *StaleError
				switch {
				case err == nil:
					res.max = max(res.max, tok)
				case errors.As(err, &se):
					if se.Token != tok || se.Highest <= tok || se.Highest < before {
						t.Errorf("Admit/Do(%d) = %v: inconsistent stale error", tok, err)
					}
					res.rejected = append(res.rejected, tok)
				default:
					t.Errorf("Admit/Do(%d) = %v", tok, err)
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	if err := <-observed; err != nil {
		t.Fatal(err)
	}

	if len(seq) == 0 {
		t.Fatal("no Do call was admitted")
	}
	for i := 1; i < len(seq); i++ {
		if seq[i] < seq[i-1] {
			t.Fatalf("recorded sequence went down at %d: %d after %d", i, seq[i], seq[i-1])
		}
	}
	var maxAdmitted Token
	nrejected := 0
	for _, res := range results {
		maxAdmitted = max(maxAdmitted, res.max)
		nrejected += len(res.rejected)
	}
	t.Logf("%d admitted under Do, %d rejected in all, final highest %d", len(seq), nrejected, maxAdmitted)
	if h := g.Highest(); h != maxAdmitted {
		t.Fatalf("final Highest() = %d, want the largest admitted token %d", h, maxAdmitted)
	}
	for _, res := range results {
		for _, tok := range res.rejected {
			if tok >= maxAdmitted {
				t.Fatalf("token %d was rejected but is not below the final highest %d", tok, maxAdmitted)
			}
		}
	}
}
