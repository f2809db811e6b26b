package shard_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/lease/shard"
	"github.com/leasehold/leasehold/lease/shard/shardtest"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// TestHandoversBounded: a member hands its shards over a few at a time
// (shard.MaxHandingOver), however many targets wait: a leaving member's
// passes, each taking 20 ms here, do not all go to the store at once, and
// every shard still moves.
func TestHandoversBounded(t *testing.T) {
	const shards = 120
	w := shardtest.NewWorld(t, leaseholdtest.Etcd(t), 2*time.Second, shards)
	ms := []*shardtest.Member{w.Join("m0", shard.Options{}), w.Join("m1", shard.Options{})}
	link := w.Server().Connect(t)
	p := &passes{delay: 20 * time.Millisecond}
	leaver := w.JoinOn("leaver", link, backends.NewStore(slowPasses{driver.Of(link.Store), p}), shard.Options{})
	w.Await("balance", 30*time.Second, func() bool { return w.Balanced(append(ms, leaver)...) })
	held := len(leaver.Group.Owned())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := leaver.Group.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	w.Await("balance without the leaver", 10*time.Second, func() bool { return w.Balanced(ms...) })
	p.mu.Lock()
	defer p.mu.Unlock()
	t.Logf("the leaver passed %d of its %d shards, at most %d at once", p.total, held, p.most)
	if p.most > shard.MaxHandingOver {
		t.Errorf("the leaver had %d passes under way at once, want at most %d", p.most, shard.MaxHandingOver)
	}
	if p.total < held {
		t.Errorf("the leaver passed %d shards of %d", p.total, held)
	}
}

// passes counts a member's passes (ends with a target) under way.
type passes struct {
	delay time.Duration
	mu    sync.Mutex
	now   int
	most  int
	total int
}

// begin counts a pass in, and returns the call that counts it out.
func (p *passes) begin() func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.now++
	p.total++
	p.most = max(p.most, p.now)
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.now--
	}
}

// slowPasses is a driver whose sessions' passes take p.delay longer.
type slowPasses struct {
	backends.Driver
	p *passes
}

func (d slowPasses) NewSession(ctx context.Context, ttl time.Duration) (backends.Session, error) {
	s, err := d.Driver.NewSession(ctx, ttl)
	if err != nil {
		return nil, err
	}
	return slowSession{s, d.p}, nil
}

type slowSession struct {
	backends.Session
	p *passes
}

func (s slowSession) End(ctx context.Context, req backends.End) (backends.Record, error) {
	if req.To == nil {
		return s.Session.End(ctx, req)
	}
	defer s.p.begin()()
	select {
	case <-time.After(s.p.delay):
	case <-ctx.Done():
		return backends.Record{}, ctx.Err()
	}
	return s.Session.End(ctx, req)
}
