package leasetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/lease"
)

func (s *suite) testBadInput(t *testing.T) {
	store, _ := s.h.NewStore(t)
	lim := store.Limits()
	ttl := max(s.base.TTL, lim.MinTTL)
	cases := []struct {
		field string
		mod   func(*lease.Options)
	}{
		{"TTL", func(o *lease.Options) { o.TTL = lim.MinTTL / 2 }},
		{"TTL", func(o *lease.Options) { o.TTL = -time.Second }},
		{"SafetyMargin", func(o *lease.Options) { o.TTL, o.SafetyMargin = ttl, ttl }},
		{"SafetyMargin", func(o *lease.Options) { o.TTL, o.SafetyMargin = ttl, -time.Millisecond }},
		{"RenewInterval", func(o *lease.Options) { o.TTL, o.RenewInterval = ttl, ttl }},
		{"ClockDrift", func(o *lease.Options) { o.ClockDrift = 0.6 }},
		{"Wait", func(o *lease.Options) { o.Wait = lease.WaitKey + 1 }},
		{"Identity", func(o *lease.Options) { o.Identity = strings.Repeat("x", lim.MaxValueSize+1) }},
		{"Labels", func(o *lease.Options) { o.Labels = map[string]string{"a b": "c"} }},
		{"Damping.Penalty", func(o *lease.Options) { o.Damping = lease.Damping{Losses: 1, Penalty: 2, Cap: 1} }},
	}
	if g := lim.TTLGranularity; g > 0 {
		cases = append(cases, struct {
			field string
			mod   func(*lease.Options)
		}{"TTL", func(o *lease.Options) { o.TTL = lim.MinTTL + g/2 }})
	}
	for _, c := range cases {
		o := s.base
		c.mod(&o)
		_, err := lease.New(store, o)
		if !errors.Is(err, lease.ErrInvalidOption) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("New with a bad %s: error %v, want ErrInvalidOption naming %s", c.field, err, c.field)
		}
	}
	if _, err := lease.New(nil, s.base); !errors.Is(err, lease.ErrInvalidOption) {
		t.Errorf("New(nil store): %v, want ErrInvalidOption", err)
	}
	e, _ := s.elector(t, "bad-input")
	ctx := backendtest.Context(t, 10*time.Second)
	for _, name := range []string{"", "/a", "a/", "a//b", "a/../b", "a b", "ü", strings.Repeat("n", 201)} {
		if _, err := e.Campaign(ctx, name); !errors.Is(err, lease.ErrInvalidOption) {
			t.Errorf("Campaign(%q): %v, want ErrInvalidOption", name, err)
		}
		if _, err := e.Observe(ctx, name); !errors.Is(err, lease.ErrInvalidOption) {
			t.Errorf("Observe(%q): %v, want ErrInvalidOption", name, err)
		}
	}
	if id := e.SessionID(); id != "" {
		t.Errorf("rejected calls made a session %s", id)
	}
}

// testRace: candidates race through Run; every one leads once, terms never
// overlap and tokens strictly increase in the order terms began.
func (s *suite) testRace(t *testing.T) {
	const n = 5
	el := backendtest.Election(t)
	var mu sync.Mutex
	active, maxActive := 0, 0
	var tokens []fencing.Token
	var wg sync.WaitGroup
	for i := range n {
		e, _ := s.elector(t, fmt.Sprintf("racer-%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := e.Run(backendtest.Context(t, 60*time.Second), el, func(ctx context.Context, l *lease.Leadership) error {
				mu.Lock()
				active++
				maxActive = max(maxActive, active)
				tokens = append(tokens, l.Token)
				mu.Unlock()
				select { // do some work as leader
				case <-ctx.Done():
				case <-time.After(20 * time.Millisecond):
				}
				mu.Lock()
				active--
				mu.Unlock()
				return nil
			})
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		}()
	}
	wg.Wait()
	if maxActive != 1 || len(tokens) != n {
		t.Fatalf("%d terms with up to %d leaders at once, want %d terms, 1 at a time", len(tokens), maxActive, n)
	}
	for i := 1; i < n; i++ {
		if tokens[i] <= tokens[i-1] {
			t.Fatalf("tokens in term order %v: not strictly increasing", tokens)
		}
	}
}

func (s *suite) testBusy(t *testing.T) {
	e, _ := s.elector(t, "busy")
	el := backendtest.Election(t)
	l := campaign(t, e, el)
	if _, err := e.Campaign(backendtest.Context(t, 10*time.Second), el); !errors.Is(err, lease.ErrBusy) {
		t.Fatalf("second Campaign on the same elector: %v, want ErrBusy", err)
	}
	resign(t, l)
	if !errors.Is(l.Err(), lease.ErrResigned) || !errors.Is(l.Err(), lease.ErrLost) {
		t.Fatalf("after Resign, Err() = %v, want ErrLost and ErrResigned", l.Err())
	}
	l2 := campaign(t, e, el)
	if l2.Token <= l.Token {
		t.Fatalf("second term token %d, want above %d", l2.Token, l.Token)
	}
}

// testObserve: an observer sees the leader, "no leader" after a resign,
// and the next leader.
func (s *suite) testObserve(t *testing.T) {
	a, _ := s.elector(t, "alice")
	b, _ := s.elector(t, "bob")
	o, _ := s.elector(t, "observer")
	el := backendtest.Election(t)
	ch, err := o.Observe(backendtest.Context(t, 60*time.Second), el)
	if err != nil {
		t.Fatal(err)
	}
	next := func(want string) lease.LeaderInfo {
		t.Helper()
		return observed(t, ch, want)
	}
	next("")
	la := campaign(t, a, el)
	if info := next("alice"); info.Token != la.Token || info.Session != la.Session {
		t.Fatalf("observed %+v, want token %d session %s", info, la.Token, la.Session)
	}
	if info, err := o.Leader(backendtest.Context(t, 10*time.Second), el); err != nil || info.Token != la.Token {
		t.Fatalf("Leader = %+v, %v; want token %d", info, err, la.Token)
	}
	resign(t, la)
	next("")
	if _, err := o.Leader(backendtest.Context(t, 10*time.Second), el); !errors.Is(err, lease.ErrNoLeader) {
		t.Fatalf("Leader with none: %v, want ErrNoLeader", err)
	}
	lb := campaign(t, b, el)
	if info := next("bob"); info.Token != lb.Token || lb.Token <= la.Token {
		t.Fatalf("observed %+v; bob's token %d must exceed alice's %d", info, lb.Token, la.Token)
	}
}

func (s *suite) testCampaignCanceled(t *testing.T) {
	a, _ := s.elector(t, "alice")
	b, _ := s.elector(t, "bob")
	el := backendtest.Election(t)
	la := campaign(t, a, el)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := b.Campaign(ctx, el); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Campaign past its deadline: %v, want DeadlineExceeded", err)
	}
	ch := campaignAsync(t, b, el)
	resign(t, la)
	if w := awaitWin(t, ch, 10*time.Second); w.l.Token <= la.Token {
		t.Fatalf("token %d after %d", w.l.Token, la.Token)
	}
}

// testUnreachable: with the store cut off, Campaign fails within its
// context with the store's error, and Close returns promptly.
func (s *suite) testUnreachable(t *testing.T) {
	e, sever := s.elector(t, "cut-off")
	sever()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := e.Campaign(ctx, backendtest.Election(t))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "last error") {
		t.Fatalf("Campaign on an unreachable store: %v, want DeadlineExceeded with the last store error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Campaign took %v on a 1s context", d)
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer ccancel()
	start = time.Now()
	_ = e.Close(cctx)
	if d := time.Since(start); d > s.opts(t).RequestTimeout+time.Second {
		t.Fatalf("Close took %v", d)
	}
	t.Logf("unreachable: %v", err)
}
