package cand

import (
	"context"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/hashicorp/consul/api"
	"github.com/leasehold/leasehold/bench/internal/env"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// etcdElection is etcd's concurrency.Election on its own session.
type etcdElection struct {
	cli *clientv3.Client
	s   *concurrency.Session
	e   *concurrency.Election
}

func newEtcdElection(st *env.Store, election string, o Opts) (Candidate, error) {
	cli, err := st.EtcdClient()
	if err != nil {
		return nil, err
	}
	s, err := concurrency.NewSession(cli, concurrency.WithTTL(int(o.TTL/time.Second)))
	if err != nil {
		cli.Close()
		return nil, err
	}
	return &etcdElection{cli: cli, s: s, e: concurrency.NewElection(s, "/bench-native/"+election)}, nil
}

// Acquire implements Candidate.
func (c *etcdElection) Acquire(ctx context.Context) error { return c.e.Campaign(ctx, "candidate") }

// Lost implements Loser: the session ends when its lease expired.
func (c *etcdElection) Lost() <-chan struct{} { return c.s.Done() }

// Release implements Candidate.
func (c *etcdElection) Release(ctx context.Context) error { return c.e.Resign(ctx) }

// Close implements Candidate.
func (c *etcdElection) Close() { c.s.Close(); c.cli.Close() }

// zkLock is go-zookeeper's zk.Lock on its own connection.
type zkLock struct {
	conn    *zk.Conn
	l       *zk.Lock
	expired chan struct{}
	once    sync.Once
}

func newZKLock(st *env.Store, election string, o Opts) (Candidate, error) {
	conn, events, err := zk.Connect(st.Endpoints, o.TTL, zk.WithLogInfo(false))
	if err != nil {
		return nil, err
	}
	c := &zkLock{conn: conn, l: zk.NewLock(conn, "/bench-native/"+election, zk.WorldACL(zk.PermAll)),
		expired: make(chan struct{})}
	go c.watchExpiry(events)
	return c, nil
}

// watchExpiry closes expired when the session expires; it drains events
// until the connection is closed.
func (c *zkLock) watchExpiry(events <-chan zk.Event) {
	for ev := range events {
		if ev.State == zk.StateExpired {
			c.once.Do(func() { close(c.expired) })
		}
	}
}

// Lost implements Loser: a lock's node goes with its session.
func (c *zkLock) Lost() <-chan struct{} { return c.expired }

// Acquire implements Candidate. zk.Lock cannot be cancelled.
func (c *zkLock) Acquire(context.Context) error { return c.l.Lock() }

// Release implements Candidate.
func (c *zkLock) Release(context.Context) error { return c.l.Unlock() }

// Close implements Candidate.
func (c *zkLock) Close() { c.conn.Close() }

// consulLock is Consul's api.Lock; it makes a new session per Lock and
// destroys it on Unlock.
type consulLock struct {
	l    *api.Lock
	lost <-chan struct{}
}

func newConsulLock(st *env.Store, election string, o Opts) (Candidate, error) {
	cli, err := st.ConsulClient()
	if err != nil {
		return nil, err
	}
	l, err := cli.LockOpts(&api.LockOptions{Key: "bench-native/" + election, SessionTTL: o.TTL.String(),
		LockDelay: o.LockDelay})
	if err != nil {
		return nil, err
	}
	return &consulLock{l: l}, nil
}

// Acquire implements Candidate.
func (c *consulLock) Acquire(ctx context.Context) error {
	stop := make(chan struct{})
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			close(stop)
		case <-done:
		}
	}()
	ch, err := c.l.Lock(stop)
	if err == nil && ch == nil {
		return ctx.Err()
	}
	c.lost = ch
	return err
}

// Lost implements Loser.
func (c *consulLock) Lost() <-chan struct{} { return c.lost }

// Release implements Candidate.
func (c *consulLock) Release(context.Context) error { return c.l.Unlock() }

// Close implements Candidate.
func (c *consulLock) Close() { _ = c.l.Unlock() }
