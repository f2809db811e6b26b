package faults

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leasehold/leasehold/integration/history"
)

// storeOpTimeout bounds one docker operation on the store, or waiting for
// the store to serve or show a leader.
const storeOpTimeout = 2 * time.Minute

// storeKill SIGKILLs the store's own leader node (docker kill), holds
// 1.5×TTL with the two others serving, and starts the node again.
func (r *run) storeKill(cd *candidate) {
	ctx, cancel := context.WithTimeout(context.Background(), storeOpTimeout)
	defer cancel()
	r.nodeFault(ctx, cd, "store-kill", r.storeLeader(ctx), r.store.Kill, r.store.Start)
}

// nodeFault breaks node i, holds 1.5×TTL, heals it, and waits for the
// store to serve, recording the fault and the heal.
func (r *run) nodeFault(ctx context.Context, cd *candidate, fault string, i int, brk, heal func(context.Context, int) error) {
	r.drv.add(history.Event{Kind: history.Fault, Fault: fault, Candidate: cd.id})
	if err := brk(ctx, i); err != nil {
		r.t.Fatalf("%s %s: %v", fault, r.store.Nodes[i].Name, err)
	}
	r.hold()
	if err := heal(ctx, i); err != nil {
		r.t.Fatalf("heal %s %s: %v", fault, r.store.Nodes[i].Name, err)
	}
	r.drv.add(history.Event{Kind: history.Heal, Fault: fault, Candidate: cd.id})
	r.calm = time.Now().Add(r.storeAllowance(fault))
	r.storeReady(ctx)
}

// storeAllowance is the store's own recovery after a heal of store fault
// kind, which check d adds to the candidates' (history.Config's
// FaultRecovery): a new store leader after a kill or a cut, a whole
// cluster serving, and electing its leader, again after a restart.
func (r *run) storeAllowance(kind string) time.Duration {
	if kind == "store-restart" {
		return r.b.restartRecovery + r.b.storeRecovery
	}
	return r.b.storeRecovery
}

// awaitCalm waits until the last store fault's recovery allowance
// (storeAllowance, from its heal) has passed, so that a policy event
// "after" the fault runs with no fault active, as its liveness bound
// assumes: a store still electing its leader is a fault. A Consul
// cluster started again has answered "No cluster leader" up to 9 s
// after the restart's heal, and a handover made 5 s after one had its
// new leader 17 s later; on etcd, a handover 181 ms after a restart's
// heal went to a target that could not yet make a session, and another
// candidate led. It waits for a time the schedule sets, not for a
// condition.
func (r *run) awaitCalm() {
	if d := time.Until(r.calm); d > 0 {
		<-time.After(d)
	}
}

// partition cuts one store node from its network (docker network
// disconnect) for 1.5×TTL, then reconnects it. The node is the one the
// leader's client starts on (candidate cN on node N-1 mod 3): the one a
// Consul candidate talks to until it fails over; etcd's client balances
// over all nodes, ZooKeeper's picks one at random. A cut node reaches
// neither its peers nor, through its published port, any client.
func (r *run) partition(cd *candidate) {
	ctx, cancel := context.WithTimeout(context.Background(), storeOpTimeout)
	defer cancel()
	r.nodeFault(ctx, cd, "partition", r.clientNode(cd), r.store.Disconnect, r.store.Reconnect)
}

// clientNode is the store node candidate cd's client starts on: cN on
// node N-1 mod 3.
func (r *run) clientNode(cd *candidate) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(cd.id, "c"))
	return max(n-1, 0) % len(r.store.Nodes)
}

// isolate cuts one store node off from its peers but not from its
// clients (stores.Cluster.IsolatePeers: iptables drops in the node's
// network namespace) for 1.5×TTL, then lifts the cut. The node is the one
// partition picks. Unlike a partition, the node keeps answering its
// clients while it has not yet noticed that it is cut off: a ZooKeeper
// follower does for syncLimit ticks.
func (r *run) isolate(cd *candidate) {
	ctx, cancel := context.WithTimeout(context.Background(), storeOpTimeout)
	defer cancel()
	r.nodeFault(ctx, cd, "isolate", r.clientNode(cd), r.store.IsolatePeers, r.store.HealPeers)
}

// storeRestart stops every store node at once (docker stop: SIGTERM,
// SIGKILL after 1 s), holds 1.5×TTL, and starts them all again.
func (r *run) storeRestart(cd *candidate) {
	ctx, cancel := context.WithTimeout(context.Background(), storeOpTimeout)
	defer cancel()
	r.drv.add(history.Event{Kind: history.Fault, Fault: "store-restart", Candidate: cd.id})
	errs := make([]error, len(r.store.Nodes))
	var wg sync.WaitGroup
	for i := range r.store.Nodes {
		wg.Go(func() { errs[i] = r.store.Stop(ctx, i, time.Second) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		r.t.Fatalf("stop the %s cluster: %v", r.store.Kind, err)
	}
	r.hold()
	for i, nd := range r.store.Nodes {
		if err := r.store.Start(ctx, i); err != nil {
			r.t.Fatalf("start %s: %v", nd.Name, err)
		}
	}
	healed, startedAt := history.Now(), time.Now()
	r.storeReady(ctx)
	served, servedAt := history.Now(), time.Now()
	r.calm = servedAt.Add(r.b.storeRecovery) // restartHealed's, in the clock of time
	if d := servedAt.Sub(startedAt); d < r.b.restartRecovery {
		r.calm = startedAt.Add(r.storeAllowance("store-restart"))
	}
	r.drv.add(history.Event{Kind: history.Heal, Fault: "store-restart", Candidate: cd.id, At: restartHealed(healed, served, r.b.restartRecovery)})
	r.t.Logf("store-restart: %s cluster serves %v after the start", r.store.Kind, served.Sub(healed).Round(time.Millisecond))
}

// restartHealed returns when check d counts a store restart healed: when
// the nodes were started, or, if the cluster took longer than allowance
// (backend.restartRecovery, which check d adds) to serve again, when it
// served less allowance. So a slow start of the store itself, as on a
// loaded machine, does not eat into the candidates' time, and check d
// still gives them no less than before.
func restartHealed(started, served history.Time, allowance time.Duration) history.Time {
	return max(started, served.Add(-allowance))
}

// storeLeader waits for the store's own leader node and returns its index.
func (r *run) storeLeader(ctx context.Context) int {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		i, err := r.store.Leader(ctx)
		if err == nil {
			return i
		}
		select {
		case <-ctx.Done():
			r.t.Fatalf("%s: no store leader: %v", r.store.Kind, err)
		case <-tick.C:
		}
	}
}

// storeReady waits until every store node serves again, so that the next
// cycle starts from a whole cluster.
func (r *run) storeReady(ctx context.Context) {
	if err := r.store.Ready(ctx); err != nil {
		r.t.Fatalf("%s cluster does not serve again: %v", r.store.Kind, err)
	}
}
