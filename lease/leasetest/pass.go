package leasetest

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/lease"
)

// testHandOverTakesNoCall: a handover's target leads, and takes the key
// with as few calls as the store allows, counted in the core's actions
// between the handover and the target's Elected. Where the store passes
// keys and its waits answer with committed states (backends.Capabilities'
// Passes and CommittedWaits: etcd, Consul), it leads on its wait's answer,
// with no Get and no Create. Where it passes keys otherwise, it confirms
// with a Get and makes no Create. Elsewhere (ZooKeeper) it creates the
// key.
func (s *suite) testHandOverTakesNoCall(t *testing.T) {
	el := backendtest.Election(t)
	leader, _ := s.policyElector(t, "leader", nil)
	acts := &actionLog{}
	target, _ := s.policyElector(t, "target", func(o *lease.Options) {
		o.Logger = slog.New(acts)
	})
	l := campaign(t, leader, el)
	ch := campaignAsync(t, target, el)
	awaitCandidates(t, leader, el, 10*time.Second, waiting(1))
	from := acts.mark()
	if err := l.HandOver(backendtest.Context(t, 10*time.Second), "target"); err != nil {
		t.Fatalf("HandOver: %v", err)
	}
	w := awaitWin(t, ch, 5*time.Second)
	if w.l.Identity != "target" || w.l.Token <= l.Token {
		t.Fatalf("handover: %s leads with token %d after %d", w.l.Identity, w.l.Token, l.Token)
	}
	calls := acts.since(from, el)
	store, _ := s.h.NewStore(t)
	gets, creates := count(calls, "get "), count(calls, "create ")
	lim := driver.Of(store).Capabilities()
	passes := lim.Passes
	switch {
	case passes && lim.CommittedWaits:
		if gets+creates > 0 {
			t.Fatalf("the target's actions after the handover were %q: want no get or create (%s passes keys and answers waits with committed states)", calls, store.Name())
		}
	case passes:
		if creates > 0 || gets == 0 {
			t.Fatalf("the target's actions after the handover were %q: want a get and no create (%s passes keys)", calls, store.Name())
		}
	case creates == 0:
		t.Fatalf("the target's actions after the handover were %q: want a create (%s passes no keys)", calls, store.Name())
	}
}

// count returns how many of calls begin with prefix.
func count(calls []string, prefix string) int {
	n := 0
	for _, c := range calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// actionLog is a slog.Handler that keeps the actions an elector logs at
// debug level ("action", with the core's action as text). If on is set,
// it is called with each action as it is logged, on the elector's loop
// goroutine, before the action is carried out.
type actionLog struct {
	mu   sync.Mutex
	acts []string
	on   func(act string)
}

func (a *actionLog) Enabled(context.Context, slog.Level) bool { return true }
func (a *actionLog) WithAttrs([]slog.Attr) slog.Handler       { return a }
func (a *actionLog) WithGroup(string) slog.Handler            { return a }

func (a *actionLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "action" {
		return nil
	}
	r.Attrs(func(at slog.Attr) bool {
		if at.Key == "action" {
			a.mu.Lock()
			a.acts = append(a.acts, at.Value.String())
			a.mu.Unlock()
			if a.on != nil {
				a.on(at.Value.String())
			}
		}
		return true
	})
	return nil
}

// mark returns the number of actions logged so far.
func (a *actionLog) mark() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.acts)
}

// since returns the actions on election logged after the first from, up
// to its first elected.
func (a *actionLog) since(from int, election string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, act := range a.acts[from:] {
		kind, rest, _ := strings.Cut(act, " ")
		if rest != election && !strings.HasPrefix(rest, election+" ") {
			continue
		}
		out = append(out, act)
		if kind == "elected" {
			break
		}
	}
	return out
}
