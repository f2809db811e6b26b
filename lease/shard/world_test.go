package shard_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
	"github.com/leasehold/leasehold/lease/shard/internal/assign"
	"github.com/leasehold/leasehold/leaseholdtest"
)

const ttl = 2 * time.Second

// world records the events of every member of one group, as each
// member's reader receives them.
type world struct {
	t      *testing.T
	srv    *leaseholdtest.Server
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
}

type acquire struct {
	member string
	l      *lease.Leadership
	at     time.Time
}

type release struct {
	member, reason string
	at             time.Time
}

func newWorld(t *testing.T, shards int) *world {
	w := &world{t: t, srv: leaseholdtest.Etcd(t), group: "orders", shards: shards, changed: make(chan struct{}),
		holders: make([]map[string]bool, shards), acquires: make([][]acquire, shards),
		releases: map[string]map[string]int{}, lastRel: make([]release, shards)}
	for s := range w.holders {
		w.holders[s] = map[string]bool{}
	}
	t.Cleanup(w.checkTokens)
	return w
}

// record takes one event of member.
func (w *world) record(member string, ev shard.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	s := ev.Shard
	if ev.Released {
		delete(w.holders[s], member)
		if w.releases[member] == nil {
			w.releases[member] = map[string]int{}
		}
		w.releases[member][ev.Reason]++
		w.lastRel[s] = release{member, ev.Reason, now}
	} else {
		w.holders[s][member] = true
		w.acquires[s] = append(w.acquires[s], acquire{member, ev.Leadership, now})
		if r := w.lastRel[s]; r.reason == shard.ReasonHandover && r.member != member {
			w.moves++
			if gap := now.Sub(r.at); gap > w.maxGap {
				w.maxGap = gap
			}
		}
	}
	close(w.changed)
	w.changed = make(chan struct{})
}

// member is one member of the group: its elector on its own link.
type member struct {
	id   string
	e    *lease.LeaseElector
	link *leaseholdtest.Link
	g    *shard.Group
	read chan struct{} // closed when its events channel closed
}

// join starts a member and joins it to the group.
func (w *world) join(id string, opts shard.Options) *member {
	w.t.Helper()
	link := w.srv.Connect(w.t)
	return w.joinOn(id, link, link.Store, opts)
}

// joinOn starts a member on store, which goes through link, and joins it
// to the group.
func (w *world) joinOn(id string, link *leaseholdtest.Link, store *backends.Store, opts shard.Options) *member {
	w.t.Helper()
	e, err := lease.New(store, lease.Options{TTL: ttl, Identity: id})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	opts.Shards = w.shards
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g, err := shard.Join(ctx, e, w.group, opts)
	if err != nil {
		w.t.Fatal(err)
	}
	m := &member{id: id, e: e, link: link, g: g, read: make(chan struct{})}
	go func() {
		defer close(m.read)
		for ev := range g.Events() {
			w.record(id, ev)
		}
	}()
	w.t.Cleanup(func() { g.Close(); <-m.read })
	return m
}

// await waits until cond holds, checked at each event, for up to timeout.
func (w *world) await(what string, timeout time.Duration, cond func() bool) time.Duration {
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
			w.t.Fatalf("%s: not within %v; holdings %v", what, timeout, w.counts())
		}
	}
}

// counts returns how many shards each member holds; "-" counts shards
// without a holder and "+" those with more than one. Under w.mu.
func (w *world) counts() map[string]int {
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

// balanced reports whether exactly the members ms hold every shard, one
// each, ⌊M/N⌋ or ⌈M/N⌉ apiece. Under w.mu.
func (w *world) balanced(ms ...*member) bool {
	n := w.counts()
	lo := w.shards / len(ms)
	hi := (w.shards + len(ms) - 1) / len(ms)
	total := 0
	for _, m := range ms {
		if n[m.id] < lo || n[m.id] > hi {
			return false
		}
		total += n[m.id]
	}
	return total == w.shards
}

// ownedBy reports whether the members ms hold every shard, one each.
// Under w.mu.
func (w *world) ownedBy(ms ...*member) bool {
	n := w.counts()
	total := 0
	for _, m := range ms {
		total += n[m.id]
	}
	return total == w.shards
}

// checkTokens checks that each shard's tokens strictly increase in the
// order its terms were won.
func (w *world) checkTokens() {
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
func (w *world) startAll(n int, opts shard.Options) []*member {
	ms := make([]*member, n)
	for i := range ms {
		ms[i] = w.join(fmt.Sprintf("m%d", i), opts)
	}
	return ms
}

func (w *world) snapshot() (moves int, rel map[string]map[string]int) {
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
func (w *world) quiet(what string, window time.Duration, bad func() bool) {
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

// churn is how many shards change owner from the assignment over before
// to the one over after (members of weight 1).
func (w *world) churn(before, after []string) int {
	a, b := owners(w.group, w.shards, before), owners(w.group, w.shards, after)
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

func ids(ms []*member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.id
	}
	return out
}
