package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/integration/history"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
)

// runMember is the process as a member of a shard group (-shards): one
// elector (one session) joined to group c.election with c.shards shards.
// While it holds a shard it writes every c.every to the shard's fenced
// resource (<fence>/s/<shard>), checking the shard's Leadership first,
// and records the shard's leaderships and writes (Event.Shard). On ctx's
// end (SIGTERM) it leaves the group gracefully (Group.Leave: its shards
// handed over), within 3×TTL.
func runMember(ctx context.Context, c config, store *backends.Store, rec *history.Recorder, log *slog.Logger) error {
	ends := newEndings()
	e, err := lease.New(store, lease.Options{TTL: c.ttl, Identity: c.id, Logger: log, Metrics: ends})
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = e.Close(cctx)
	}()
	g, err := shard.Join(ctx, e, c.election, shard.Options{Shards: c.shards, Settle: c.settle, Logger: log})
	if err != nil {
		return err
	}
	left := make(chan error, 1)
	go func() {
		<-ctx.Done()
		lctx, cancel := context.WithTimeout(context.Background(), 3*c.ttl)
		defer cancel()
		left <- g.Leave(lctx)
	}()
	m := &member{c: c, rec: rec, http: &http.Client{}, ends: ends, acting: map[int]func(){}}
	for ev := range g.Events() {
		m.event(ev)
	}
	m.stopAll()
	select {
	case err := <-left:
		return err
	default:
		return fmt.Errorf("group ended: %w", g.Close())
	}
}

// member acts on the shards its group member holds.
type member struct {
	c      config
	rec    *history.Recorder
	http   *http.Client
	ends   *endings
	acting map[int]func() // by shard: stops its writer and waits for it
}

// event starts a writer on a shard won, and stops it on a shard lost.
func (m *member) event(ev shard.Event) {
	if stop := m.acting[ev.Shard]; stop != nil {
		stop()
		delete(m.acting, ev.Shard)
	}
	if ev.Released {
		return
	}
	c := m.c
	c.fence = fmt.Sprintf("%s/s/%d", m.c.fence, ev.Shard)
	c.election = ev.Leadership.Election
	w := &writer{c: c, rec: m.rec.ForShard(strconv.Itoa(ev.Shard)), http: m.http, ends: m.ends}
	ctx, cancel := context.WithCancel(ev.Leadership.Context())
	var wg sync.WaitGroup
	wg.Go(func() { _ = w.lead(ctx, ev.Leadership) })
	m.acting[ev.Shard] = func() { cancel(); wg.Wait() }
}

// stopAll stops every writer.
func (m *member) stopAll() {
	for s, stop := range m.acting {
		stop()
		delete(m.acting, s)
	}
}
