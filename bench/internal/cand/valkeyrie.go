package cand

import (
	"context"
	"strings"
	"time"

	"github.com/kvtools/consul"
	"github.com/kvtools/etcdv3"
	"github.com/kvtools/valkeyrie"
	"github.com/kvtools/valkeyrie/store"
	"github.com/kvtools/zookeeper"
	"github.com/leasehold/leasehold/bench/internal/env"
)

// valkeyrieLock is valkeyrie's Locker; a new one (and, on etcd and
// Consul, a new session) per Acquire, as docker/leadership does.
type valkeyrieLock struct {
	kv    store.Store
	key   string
	ttl   time.Duration
	lock  store.Locker
	renew chan struct{}
	kind  env.Kind
}

func newValkeyrie(st *env.Store, election string, o Opts) (Candidate, error) {
	var cfg valkeyrie.Config
	name := string(st.Kind)
	ttl := o.TTL
	switch st.Kind {
	case env.Etcd:
		name, cfg = etcdv3.StoreName, &etcdv3.Config{ConnectionTimeout: 5 * time.Second}
	case env.ZooKeeper:
		cfg = &zookeeper.Config{ConnectionTimeout: o.TTL}
	case env.Consul:
		cfg = &consul.Config{ConnectionTimeout: 5 * time.Second}
		ttl = max(ttl, 20*time.Second) // valkeyrie asks Consul for TTL/2, at least 10 s
	}
	eps := make([]string, len(st.Endpoints))
	for i, ep := range st.Endpoints { // valkeyrie adds the scheme itself
		eps[i] = strings.TrimPrefix(ep, "http://")
	}
	kv, err := valkeyrie.NewStore(context.Background(), name, eps, cfg)
	if err != nil {
		return nil, err
	}
	return &valkeyrieLock{kv: kv, key: "bench-valkeyrie/" + election, ttl: ttl, kind: st.Kind}, nil
}

// Acquire implements Candidate.
func (c *valkeyrieLock) Acquire(ctx context.Context) error {
	c.renew = make(chan struct{})
	l, err := c.kv.NewLock(context.Background(), c.key, &store.LockOptions{TTL: c.ttl, RenewLock: c.renew})
	if err != nil {
		return err
	}
	c.lock = l
	_, err = l.Lock(ctx)
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// Release implements Candidate.
func (c *valkeyrieLock) Release(ctx context.Context) error {
	err := c.lock.Unlock(ctx)
	if c.kind == env.Etcd {
		close(c.renew) // ends the lock's session; Consul's Unlock closes it itself
	}
	return err
}

// Close implements Candidate.
func (c *valkeyrieLock) Close() { c.kv.Close() }
