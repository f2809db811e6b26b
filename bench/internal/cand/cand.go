// Package cand gives every election library under test one shape: a
// Candidate that acquires and releases leadership of one election.
package cand

import (
	"context"
	"fmt"
	"time"

	"github.com/leasehold/leasehold/bench/internal/env"
	"github.com/leasehold/leasehold/lease"
)

// Lib names an election library.
type Lib string

// The libraries under test.
const (
	// Leasehold is this project's lease.LeaseElector.
	Leasehold Lib = "leasehold"
	// Native is the store's own client recipe: etcd concurrency.Election,
	// go-zookeeper zk.Lock, Consul api.Lock.
	Native Lib = "native"
	// Valkeyrie is valkeyrie's lock on the store.
	Valkeyrie Lib = "valkeyrie"
)

// Candidate campaigns for one election. Acquire and Release alternate;
// Close ends the candidate and its session. A Candidate is used by one
// goroutine at a time.
type Candidate interface {
	// Acquire blocks until the candidate leads or ctx ends.
	Acquire(ctx context.Context) error
	// Release gives leadership up and returns once the store freed it.
	Release(ctx context.Context) error
	// Close releases everything the candidate holds.
	Close()
}

// Loser is a Candidate whose library says when its leadership ended
// without a Release: leasehold's Leadership context, etcd's session,
// api.Lock's lost channel, zk.Lock's session expiry.
type Loser interface {
	// Lost is closed once the leadership of the last Acquire ended; nil
	// before an Acquire.
	Lost() <-chan struct{}
}

// Opts configure a Candidate.
type Opts struct {
	// TTL is the session TTL.
	TTL time.Duration
	// LockDelay is Consul's session lock-delay; 0 means Consul's default
	// (15 s) for api.Lock and the adapter's smallest (1 ms) for leasehold.
	LockDelay time.Duration
	// Wait is leasehold's wait mode (lease.Options.Wait); zero is
	// leasehold's default.
	Wait lease.WaitMode
	// Identity, if set, prefixes the identities of the electors Electors
	// makes: Identity-0, Identity-1, …; empty leaves leasehold's default.
	Identity string
	// Process, if set, is the candidate binary (cmd/candidate): New then
	// runs each candidate in a process of its own (NewRemote).
	Process string
}

// identity returns the identity of Electors' elector i.
func (o Opts) identity(i int) string {
	if o.Identity == "" {
		return ""
	}
	return fmt.Sprintf("%s-%d", o.Identity, i)
}

// New returns a candidate for election on st using lib.
func New(lib Lib, st *env.Store, election string, o Opts) (Candidate, error) {
	if o.Process != "" {
		return NewRemote(o.Process, lib, st, election, o)
	}
	switch lib {
	case Leasehold:
		return newLeasehold(st, election, o)
	case Native:
		switch st.Kind {
		case env.Etcd:
			return newEtcdElection(st, election, o)
		case env.ZooKeeper:
			return newZKLock(st, election, o)
		case env.Consul:
			return newConsulLock(st, election, o)
		}
	case Valkeyrie:
		return newValkeyrie(st, election, o)
	}
	return nil, fmt.Errorf("cand: no %s candidate on %s", lib, st.Kind)
}

// PeerName is how a native peer is named in results.
func PeerName(lib Lib, k env.Kind) string {
	if lib != Native {
		return string(lib)
	}
	return map[env.Kind]string{env.Etcd: "etcd concurrency.Election", env.ZooKeeper: "go-zookeeper zk.Lock",
		env.Consul: "consul api.Lock"}[k]
}
