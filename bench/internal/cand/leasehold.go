package cand

import (
	"context"
	"errors"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/zookeeper"
)

// leaseholdCand is a lease.LeaseElector campaigning for one election.
type leaseholdCand struct {
	e        *lease.LeaseElector
	election string
	l        *lease.Leadership
	closeFn  func()
}

func newLeasehold(st *env.Store, election string, o Opts) (Candidate, error) {
	store, closeFn, err := LeaseholdStore(st, o)
	if err != nil {
		return nil, err
	}
	e, err := lease.New(store, lease.Options{TTL: o.TTL, Wait: o.Wait})
	if err != nil {
		closeFn()
		return nil, err
	}
	return &leaseholdCand{e: e, election: election, closeFn: closeFn}, nil
}

// LeaseholdStore returns a leasehold store adapter on st with its own
// client and a function that closes that client.
func LeaseholdStore(st *env.Store, o Opts) (*backends.Store, func(), error) {
	switch st.Kind {
	case env.Etcd:
		c, err := st.EtcdClient()
		if err != nil {
			return nil, nil, err
		}
		s, err := etcd.New(c, etcd.Options{})
		return s, func() { c.Close() }, err
	case env.ZooKeeper:
		s, err := zookeeper.New(st.Endpoints, zookeeper.Options{TickTime: 200 * time.Millisecond})
		if err != nil {
			return nil, nil, err
		}
		return s, func() { _ = s.Close() }, nil
	default:
		c, err := st.ConsulClient()
		if err != nil {
			return nil, nil, err
		}
		s, err := consul.New(c, consul.Options{LockDelay: o.LockDelay})
		return s, func() {}, err
	}
}

// Acquire implements Candidate.
func (c *leaseholdCand) Acquire(ctx context.Context) error {
	l, err := c.e.Campaign(ctx, c.election)
	c.l = l
	return err
}

// Lost implements Loser.
func (c *leaseholdCand) Lost() <-chan struct{} {
	if c.l == nil {
		return nil
	}
	return c.l.Context().Done()
}

// Release implements Candidate.
func (c *leaseholdCand) Release(ctx context.Context) error {
	if c.l == nil {
		return errors.New("leasehold: release without leadership")
	}
	err := c.l.Resign(ctx)
	c.l = nil
	return err
}

// Close implements Candidate.
func (c *leaseholdCand) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.e.Close(ctx)
	c.closeFn()
}
