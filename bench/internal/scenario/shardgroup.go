package scenario

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/bench/internal/cand"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/bench/internal/trace"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
)

// groupMember is one member of the shards scenario's group: an elector
// with its own client and session, as a process of its own would have.
type groupMember struct {
	e     *lease.LeaseElector
	g     *shard.Group
	link  *env.Link // member 0's only: the link the kill severs
	close func()    // closes its client
	read  chan struct{}
}

// shardGroup is the group of the shards scenario: its members, their
// traced store calls, and the book of their events.
type shardGroup struct {
	st     *env.Store
	name   string
	m      int
	settle time.Duration
	ms     []*groupMember
	tally  *trace.Tally
	book   *book
}

// newShardGroup makes the electors of n members of a group of m shards
// on st, each on its own client, and waits for their sessions. Member 0
// reaches the store through a link of its own, which the kill severs.
// The members join with shard.Options.Settle settle.
func newShardGroup(st *env.Store, n, m int, settle time.Duration, o cand.Opts) (*shardGroup, error) {
	if n > maxShardMembers {
		return nil, fmt.Errorf("shards: %d members, at most %d", n, maxShardMembers)
	}
	w := &shardGroup{st: st, name: fmt.Sprintf("bench-shards-%d-%d", m, time.Now().UnixNano()), m: m, settle: settle,
		tally: &trace.Tally{}, book: newBook(n, m)}
	for i := range n {
		gm, err := w.newMember(i, o)
		if err != nil {
			w.close()
			return nil, err
		}
		w.ms = append(w.ms, gm)
	}
	return w, nil
}

// newMember makes member i's elector and waits for its session.
func (w *shardGroup) newMember(i int, o cand.Opts) (*groupMember, error) {
	gm := &groupMember{read: make(chan struct{})}
	st := w.st
	if i == 0 {
		k, err := env.NewLink(w.st)
		if err != nil {
			return nil, err
		}
		gm.link, st = k, k.Store
	}
	s, c, err := cand.LeaseholdStore(st, o)
	if err != nil {
		gm.shut()
		return nil, err
	}
	gm.close = c
	traced := backends.NewStore(trace.Wrap(driver.Of(s), fmt.Sprint(i), w.tally))
	if gm.e, err = lease.New(traced, lease.Options{TTL: o.TTL, Identity: fmt.Sprintf("m%d", i)}); err != nil {
		gm.shut()
		return nil, err
	}
	ctx, cancel := bg()
	defer cancel()
	if _, err := gm.e.AwaitSession(ctx); err != nil {
		gm.shut()
		return nil, err
	}
	return gm, nil
}

// join joins member i to the group and starts reading its events into
// the book.
func (w *shardGroup) join(i int) error {
	ctx, cancel := bg()
	defer cancel()
	gm := w.ms[i]
	g, err := shard.Join(ctx, gm.e, w.name, shard.Options{Shards: w.m, Settle: w.settle})
	if err != nil {
		return fmt.Errorf("member %d: %w", i, err)
	}
	gm.g = g
	go func() {
		defer close(gm.read)
		for ev := range g.Events() {
			w.book.record(i, ev)
		}
	}()
	return nil
}

// joinAll joins members ms at once and returns the first error.
func (w *shardGroup) joinAll(ms []int) error {
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for k, i := range ms {
		wg.Go(func() { errs[k] = w.join(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// counts returns the store's counters, member 0's link's Consul client
// included (a Consul client counts its own requests).
func (w *shardGroup) counts() (env.Counts, error) {
	c, err := w.st.Counts(context.Background())
	if err != nil || w.st.Kind != env.Consul {
		return c, err
	}
	l, err := w.ms[0].link.Store.Counts(context.Background())
	return env.Counts{Requests: c.Requests + l.Requests, Notifications: c.Notifications + l.Notifications}, err
}

// close closes every member's group (without handing over) at once,
// then its elector and client.
func (w *shardGroup) close() {
	var wg sync.WaitGroup
	for _, gm := range w.ms {
		wg.Go(gm.shut)
	}
	wg.Wait()
}

// shut ends the member: its group, its elector, its client, its link.
func (gm *groupMember) shut() {
	if gm.g != nil {
		_ = gm.g.Close()
		<-gm.read
	}
	if gm.e != nil {
		closeElector(gm.e)
	}
	if gm.close != nil {
		gm.close()
	}
	if gm.link != nil {
		gm.link.Close()
	}
}
