package shard_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/lease/shard"
	"github.com/leasehold/leasehold/lease/shard/shardtest"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// TestRequestsAtRest: once a group is balanced, its members make no store
// request but their sessions' renewals, whatever the number of shards;
// and a join costs each member one listing of the members roster, not
// one per shard.
func TestRequestsAtRest(t *testing.T) {
	for _, shards := range []int{16, 256} {
		t.Run(fmt.Sprint(shards), func(t *testing.T) {
			w := shardtest.NewWorld(t, leaseholdtest.Etcd(t), 2*time.Second, shards)
			var c counts
			ms := joinCounted(t, w, 3, &c)
			w.Await("balance", 30*time.Second, func() bool { return w.Balanced(ms...) })
			// The last moves' tails (the new holders' first watches of
			// their rosters, the old records' removal) end within a
			// second; then three seconds at rest are counted.
			<-time.After(time.Second)
			c.reset()
			<-time.After(3 * time.Second)
			calls, renewals, lists := c.read()
			t.Logf("M=%d at rest for 3s: %d requests besides %d renewals", shards, calls, renewals)
			if calls != 0 || lists != 0 {
				c.mu.Lock()
				t.Errorf("M=%d: %d store requests (%d lists) at rest besides renewals, want none: %v", shards, calls, lists, c.seen)
				c.mu.Unlock()
			}

			c.reset()
			ms = append(ms, w.Join("new", shard.Options{}))
			w.Await("balance with a fourth member", 30*time.Second, func() bool { return w.Balanced(ms...) })
			<-time.After(time.Second) // the tails, as above
			c.mu.Lock()
			defer c.mu.Unlock()
			members, others := 0, 0
			for k, n := range c.seen {
				switch {
				case k == "List "+shard.MembersElection(w.Name()):
					members += n
				case strings.HasPrefix(k, "List "):
					others += n
				}
			}
			t.Logf("M=%d, a join: the 3 members listed the members roster %d times and shard rosters %d times", shards, members, others)
			if members > 3*2 {
				t.Errorf("M=%d: %d lists of the members roster for one join by 3 members, want at most 2 each", shards, members)
			}
		})
	}
}

// counts are the store requests of the members that use a countingDriver.
type counts struct {
	calls, renewals, lists atomic.Int64
	mu                     sync.Mutex
	seen                   map[string]int // request kind and election: count
}

func (c *counts) saw(kind, election string) {
	c.calls.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]int{}
	}
	c.seen[kind+" "+election]++
}

func (c *counts) reset() {
	c.calls.Store(0)
	c.renewals.Store(0)
	c.lists.Store(0)
	c.mu.Lock()
	c.seen = nil
	c.mu.Unlock()
}

func (c *counts) read() (calls, renewals, lists int64) {
	return c.calls.Load(), c.renewals.Load(), c.lists.Load()
}

// countingDriver counts the requests made through the driver it wraps,
// its sessions and its watch sets.
type countingDriver struct {
	backends.Driver
	c *counts
}

func (d countingDriver) Get(ctx context.Context, election string) (backends.Record, error) {
	d.c.saw("Get", election)
	return d.Driver.Get(ctx, election)
}

func (d countingDriver) List(ctx context.Context, election string) ([]backends.Record, uint64, error) {
	d.c.saw("List", election)
	d.c.lists.Add(1)
	return d.Driver.List(ctx, election)
}

func (d countingDriver) Ahead(ctx context.Context, election string, token uint64) (backends.Record, error) {
	d.c.saw("Ahead", election)
	return d.Driver.Ahead(ctx, election, token)
}

func (d countingDriver) NewSession(ctx context.Context, ttl time.Duration) (backends.Session, error) {
	d.c.saw("NewSession", "")
	s, err := d.Driver.NewSession(ctx, ttl)
	if err != nil {
		return nil, err
	}
	return countingSession{s, d.c}, nil
}

func (d countingDriver) Watch(deliver func(backends.Change)) backends.WatchSet {
	return countingSet{d.Driver.Watch(deliver), d.c}
}

type countingSession struct {
	backends.Session
	c *counts
}

func (s countingSession) KeepAlive(ctx context.Context) error {
	s.c.renewals.Add(1)
	return s.Session.KeepAlive(ctx)
}

func (s countingSession) Create(ctx context.Context, election string, value []byte) (backends.Record, error) {
	s.c.saw("Create", election)
	return s.Session.Create(ctx, election, value)
}

func (s countingSession) End(ctx context.Context, req backends.End) (backends.Record, error) {
	s.c.saw("End", req.Election)
	return s.Session.End(ctx, req)
}

func (s countingSession) Enqueue(ctx context.Context, election string) (backends.Record, error) {
	s.c.saw("Enqueue", election)
	return s.Session.Enqueue(ctx, election)
}

func (s countingSession) Join(ctx context.Context, election string, value []byte) (backends.Record, error) {
	s.c.saw("Join", election)
	return s.Session.Join(ctx, election, value)
}

func (s countingSession) Leave(ctx context.Context, election string) error {
	s.c.saw("Leave", election)
	return s.Session.Leave(ctx, election)
}

type countingSet struct {
	backends.WatchSet
	c *counts
}

func (s countingSet) Wait(req backends.WatchRequest) {
	s.c.saw(fmt.Sprintf("Wait(kind %d)", req.Kind), req.Known.Election)
	s.WatchSet.Wait(req)
}

// joinCounted joins n members m0, m1, ... to w, each on a link of its own
// whose store requests c counts.
func joinCounted(t *testing.T, w *shardtest.World, n int, c *counts) []*shardtest.Member {
	var ms []*shardtest.Member
	for i := range n {
		link := w.Server().Connect(t)
		store := backends.NewStore(countingDriver{driver.Of(link.Store), c})
		ms = append(ms, w.JoinOn(fmt.Sprintf("m%d", i), link, store, shard.Options{}))
	}
	return ms
}
