package leasetest

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// testHandOverTakesNoCall: a handover's target leads. Where the store
// passes keys and its waits answer with committed states
// (backends.Passer, backends.CommittedWaits: etcd, Consul), it leads on
// its wait's answer: between the handover and its Elected it makes no
// Get and no Create of its own. Elsewhere it takes the key with a Create.
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
	if !committedPasser(store) {
		t.Logf("%s does not pass keys on committed answers: the target's actions were %q", store.Name(), calls)
		return
	}
	for _, c := range calls {
		if strings.HasPrefix(c, "get ") || strings.HasPrefix(c, "create ") {
			t.Fatalf("the target's actions after the handover were %q: want no Get or Create (%s passes keys on committed answers)", calls, store.Name())
		}
	}
}

// committedPasser reports whether store passes keys (backends.Passer) and
// its waits answer with committed states (backends.CommittedWaits).
func committedPasser(store backends.Store) bool {
	_, passes := store.(backends.Passer)
	cw, ok := store.(backends.CommittedWaits)
	return passes && ok && cw.CommittedWaits()
}

// actionLog is a slog.Handler that keeps the actions an elector logs at
// debug level ("action", with the core's action as text).
type actionLog struct {
	mu   sync.Mutex
	acts []string
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
