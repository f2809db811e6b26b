// Package shardtest runs the scenarios of a shard group (package shard)
// against a real store: cold start, join and leave by handover, a crash,
// a flapping member, a session the store ends, weights. Run is called by
// the shard package's tests on an in-process etcd and by the integration
// tests on ZooKeeper and Consul containers. Only tests import it.
package shardtest

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
	"github.com/leasehold/leasehold/lease/shard/internal/assign"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// groups numbers the groups of the Worlds, so that Worlds can share a
// server.
var groups atomic.Int64

// World records the events of every member of one group, as each
// member's reader receives them.
type World struct {
	t      *testing.T
	srv    *leaseholdtest.Server
	ttl    time.Duration
	group  string
	shards int

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced at each event
	holders  []map[string]bool
	acquires [][]acquire               // per shard
	releases map[string]map[string]int // member: reason: count
	moves    int                       // acquires of a shard whose last holder released it by handover
	lastRel  []release                 // per shard: the last release
	maxGap   time.Duration             // longest time a shard released by handover waited for its next holder
	members  map[string]bool           // the members joined
	history  [][]string                // per shard: its events, for a failure's message
}

type acquire struct {
	member string
	l      *lease.Leadership
	at     time.Time
	token  fencing.Token
	moved  bool // counted as a move
}

type release struct {
	member, reason string
	at             time.Time
	token          fencing.Token
}

// lastAcq returns shard s's last acquire, or nil.
func (w *World) lastAcq(s int) *acquire {
	if n := len(w.acquires[s]); n > 0 {
		return &w.acquires[s][n-1]
	}
	return nil
}

// move counts a as a move, once, after a hand-off gap of gap. Members'
// readers tell their events in any order between them, so a move is
// counted at whichever of its release and acquire is recorded last.
func (w *World) move(a *acquire, gap time.Duration) {
	if a.moved {
		return
	}
	a.moved = true
	w.moves++
	w.maxGap = max(w.maxGap, gap)
}

// NewWorld returns a World of a group of shards on srv, whose members'
// electors have TTL ttl; it checks the shards' tokens when t ends.
func NewWorld(t *testing.T, srv *leaseholdtest.Server, ttl time.Duration, shards int) *World {
	w := &World{t: t, srv: srv, ttl: ttl, group: fmt.Sprintf("g%d", groups.Add(1)), shards: shards, changed: make(chan struct{}),
		holders: make([]map[string]bool, shards), acquires: make([][]acquire, shards),
		releases: map[string]map[string]int{}, lastRel: make([]release, shards)}
	for s := range w.holders {
		w.holders[s] = map[string]bool{}
	}
	t.Cleanup(w.checkTokens)
	return w
}

// Server returns the World's store server.
func (w *World) Server() *leaseholdtest.Server { return w.srv }

// Name returns the World's group name.
func (w *World) Name() string { return w.group }

// record takes one event of member.
func (w *World) record(member string, ev shard.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	s := ev.Shard
	if w.history == nil {
		w.history = make([][]string, w.shards)
	}
	w.history[s] = append(w.history[s], fmt.Sprintf("%s %v released=%v %s token %d",
		member, now.Format("05.000"), ev.Released, ev.Reason, ev.Leadership.Token))
	tok := ev.Leadership.Token
	if ev.Released {
		delete(w.holders[s], member)
		if w.releases[member] == nil {
			w.releases[member] = map[string]int{}
		}
		w.releases[member][ev.Reason]++
		w.lastRel[s] = release{member, ev.Reason, now, tok}
		// The next holder's reader may have told its acquire first.
		if a := w.lastAcq(s); a != nil && ev.Reason == shard.ReasonHandover && a.member != member && a.token > tok {
			w.move(a, 0)
		}
	} else {
		w.holders[s][member] = true
		w.acquires[s] = append(w.acquires[s], acquire{member: member, l: ev.Leadership, at: now, token: tok})
		a := &w.acquires[s][len(w.acquires[s])-1]
		if r := w.lastRel[s]; r.reason == shard.ReasonHandover && r.member != member && r.token < tok {
			w.move(a, now.Sub(r.at))
		}
	}
	close(w.changed)
	w.changed = make(chan struct{})
}

// Member is one member of the group: its elector on its own link.
type Member struct {
	ID      string
	Elector *lease.LeaseElector
	Link    *leaseholdtest.Link
	Group   *shard.Group
	read    chan struct{} // closed when its events channel closed
}

// Join starts a member and joins it to the group.
func (w *World) Join(id string, opts shard.Options) *Member {
	w.t.Helper()
	link := w.srv.Connect(w.t)
	return w.JoinOn(id, link, link.Store, opts)
}

// JoinOn starts a member on store, which goes through link, and joins it
// to the group.
func (w *World) JoinOn(id string, link *leaseholdtest.Link, store *backends.Store, opts shard.Options) *Member {
	w.t.Helper()
	e, err := lease.New(store, lease.Options{TTL: w.ttl, Identity: id, Logger: testLogger(w.t, id)})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	opts.Shards = w.shards
	ctx, cancel := context.WithTimeout(context.Background(), max(30*time.Second, 4*w.ttl))
	defer cancel()
	g, err := shard.Join(ctx, e, w.group, opts)
	if err != nil {
		w.t.Fatal(err)
	}
	w.mu.Lock()
	if w.members == nil {
		w.members = map[string]bool{}
	}
	w.members[id] = true
	w.mu.Unlock()
	m := &Member{ID: id, Elector: e, Link: link, Group: g, read: make(chan struct{})}
	go func() {
		defer close(m.read)
		for ev := range g.Events() {
			w.record(id, ev)
		}
	}()
	w.t.Cleanup(func() { _ = g.Close(); <-m.read })
	return m
}

// Await waits until cond holds, checked at each event, for up to timeout.
func (w *World) Await(what string, timeout time.Duration, cond func() bool) time.Duration {
	w.t.Helper()
	start := time.Now()
	deadline := time.After(timeout)
	for {
		w.mu.Lock()
		ok, ch := cond(), w.changed
		w.mu.Unlock()
		if ok {
			return time.Since(start)
		}
		select {
		case <-ch:
		case <-deadline:
			w.mu.Lock()
			defer w.mu.Unlock()
			w.t.Fatalf("%s: not within %v; holdings %v; %s", what, timeout, w.counts(), w.unheld())
		}
	}
}

// unheld describes the first shards without a holder, as the store has
// them. Under w.mu.
func (w *World) unheld() string {
	var out []string
	own := owners(w.group, w.shards, slices.Sorted(maps.Keys(w.members)))
	for s, hs := range w.holders {
		if len(hs) == 0 && len(out) < 5 {
			info := w.srv.Leader(w.t, shard.Election(w.group, s, w.shards))
			out = append(out, fmt.Sprintf("shard %d: the store's leader %q token %d, assigned to %s; events %v",
				s, info.Identity, info.Token, own[s], w.history[s]))
		}
	}
	return strings.Join(out, "; ")
}

// counts returns how many shards each member holds; "-" counts shards
// without a holder and "+" those with more than one. Under w.mu.
func (w *World) counts() map[string]int {
	n := map[string]int{}
	for _, hs := range w.holders {
		switch len(hs) {
		case 0:
			n["-"]++
		case 1:
			for m := range hs {
				n[m]++
			}
		default:
			n["+"]++
		}
	}
	return n
}

// Balanced reports whether exactly the members ms hold every shard, one
// each, ⌊M/N⌋ or ⌈M/N⌉ apiece. Call it in an Await condition.
func (w *World) Balanced(ms ...*Member) bool {
	n := w.counts()
	lo := w.shards / len(ms)
	hi := (w.shards + len(ms) - 1) / len(ms)
	total := 0
	for _, m := range ms {
		if n[m.ID] < lo || n[m.ID] > hi {
			return false
		}
		total += n[m.ID]
	}
	return total == w.shards
}

// ownedBy reports whether the members ms hold every shard, one each.
// Under w.mu.
func (w *World) ownedBy(ms ...*Member) bool {
	n := w.counts()
	total := 0
	for _, m := range ms {
		total += n[m.ID]
	}
	return total == w.shards
}

// checkTokens checks that each shard's tokens strictly increase in the
// order its terms were won.
func (w *World) checkTokens() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for s, as := range w.acquires {
		as = slices.Clone(as)
		sort.SliceStable(as, func(i, j int) bool { return as[i].l.Acquired.Before(as[j].l.Acquired) })
		for i := 1; i < len(as); i++ {
			if as[i].l.Token <= as[i-1].l.Token {
				w.t.Errorf("shard %d: %s won token %d after %s's %d", s, as[i].member, as[i].l.Token,
					as[i-1].member, as[i-1].l.Token)
			}
		}
	}
}

// startAll joins n members m0..m(n-1), one after the other (each Join
// returns within a round trip).
func (w *World) startAll(n int, opts shard.Options) []*Member {
	ms := make([]*Member, n)
	for i := range ms {
		ms[i] = w.Join(fmt.Sprintf("m%d", i), opts)
	}
	return ms
}

func (w *World) snapshot() (moves int, rel map[string]map[string]int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rel = map[string]map[string]int{}
	for m, r := range w.releases {
		rel[m] = map[string]int{}
		for k, v := range r {
			rel[m][k] = v
		}
	}
	return w.moves, rel
}

func contextWithTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// quiet fails the test as soon as bad holds, checked at each event, in
// the window.
func (w *World) quiet(what string, window time.Duration, bad func() bool) {
	w.t.Helper()
	end := time.After(window)
	for {
		w.mu.Lock()
		b, ch := bad(), w.changed
		w.mu.Unlock()
		if b {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.t.Fatalf("%s within %v; holdings %v, releases %v", what, window, w.counts(), w.releases)
		}
		select {
		case <-ch:
		case <-end:
			return
		}
	}
}

// Churn is how many of shards shards of group change owner from the
// assignment over members before to the one over after (weight 1).
func Churn(group string, shards int, before, after []string) int {
	a, b := owners(group, shards, before), owners(group, shards, after)
	n := 0
	for s := range a {
		if a[s] != b[s] {
			n++
		}
	}
	return n
}

// owners returns the owner of each shard over members ids of weight 1.
func owners(group string, shards int, ids []string) []string {
	ms := make([]assign.Member, len(ids))
	for i, id := range ids {
		ms[i] = assign.Member{ID: id, Weight: 1}
	}
	out := make([]string, shards)
	for s, i := range assign.Assign(group, shards, ms, nil) {
		out[s] = ids[i]
	}
	return out
}

// IDs returns the members' IDs.
func IDs(ms []*Member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// testLogger logs warnings and errors to t.
func testLogger(t *testing.T, id string) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})).With("member", id)
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
