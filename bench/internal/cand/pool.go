package cand

import (
	"context"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/lease"
)

// Electors returns n leasehold electors on st, each with its own session
// (and, if o.Identity is set, the identity o.Identity-i, i from 0).
// On etcd and Consul they share conns clients round-robin; on ZooKeeper
// every elector dials its own connection (a ZooKeeper session is a
// connection). The returned function closes them all.
func Electors(st *env.Store, n, conns int, o Opts) ([]*lease.LeaseElector, func(), error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	stores := make([]*backends.Store, 0, conns)
	for i := 0; i < conns && st.Kind != env.ZooKeeper; i++ {
		s, c, err := sharedStore(st, o)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		stores, closers = append(stores, s), append(closers, c)
	}
	es := make([]*lease.LeaseElector, n)
	for i := range es {
		var s *backends.Store
		if st.Kind == env.ZooKeeper {
			zs, c, err := LeaseholdStore(st, o)
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			s, closers = zs, append(closers, c)
		} else {
			s = stores[i%len(stores)]
		}
		e, err := lease.New(s, lease.Options{TTL: o.TTL, Wait: o.Wait, Identity: o.identity(i)})
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		es[i] = e
		closers = append(closers, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = e.Close(ctx)
		})
	}
	return es, closeAll, nil
}

// sharedStore returns an etcd or Consul adapter on a new client.
func sharedStore(st *env.Store, o Opts) (*backends.Store, func(), error) {
	if st.Kind == env.Etcd {
		c, err := st.EtcdClient()
		if err != nil {
			return nil, nil, err
		}
		s, err := etcd.New(c, etcd.Options{})
		return s, func() { c.Close() }, err
	}
	c, err := st.ConsulClient()
	if err != nil {
		return nil, nil, err
	}
	s, err := consul.New(c, consul.Options{LockDelay: o.LockDelay})
	return s, func() {}, err
}
