package lease_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/lease"
)

// group is electors on one in-process etcd, for the examples of the
// policies, which need several.
type group struct {
	store *backends.Store
	stop  func()
	es    []*lease.LeaseElector
}

func newGroup() *group {
	store, stop := newStore()
	return &group{store: store, stop: stop}
}

// elector returns a new elector with o, whose TTL is 2 s unless set.
func (g *group) elector(o lease.Options) *lease.LeaseElector {
	if o.TTL == 0 {
		o.TTL = 2 * time.Second
	}
	e, err := lease.New(g.store, o)
	if err != nil {
		log.Fatal(err)
	}
	g.es = append(g.es, e)
	return e
}

// close closes every elector, then the store.
func (g *group) close() {
	for _, e := range g.es {
		e.Close(context.Background())
	}
	g.stop()
}

// waitFor blocks until e lists n candidates in election.
func waitFor(e *lease.LeaseElector, election string, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ch, err := e.ObserveCandidates(ctx, election)
	if err != nil {
		log.Fatal(err)
	}
	for cs := range ch {
		if len(cs) == n {
			return
		}
	}
	log.Fatalf("%s: fewer than %d candidates", election, n)
}

// campaign starts e's campaign for election; the channel gets its
// leadership. A campaign still waiting when e closes ends then.
func campaign(e *lease.LeaseElector, election string) <-chan *lease.Leadership {
	won := make(chan *lease.Leadership, 1)
	go func() {
		if l, err := e.Campaign(context.Background(), election); err == nil {
			won <- l
		}
	}()
	return won
}

// await returns what ch sends, or ends the example if nothing comes
// within 30 s, rather than hang until the test binary's timeout.
func await[T any](ch <-chan T, what string) T {
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		log.Fatalf("%s: not within 30s", what)
		panic("unreachable")
	}
}

// Candidates lists an election's candidates in succession order: the
// leader, then those that may lead by priority, then those that may not.
func ExampleLeaseElector_Candidates() {
	g := newGroup()
	defer g.close()
	a := g.elector(lease.Options{Identity: "a", Priority: 1})
	if _, err := a.Campaign(context.Background(), "jobs/billing"); err != nil {
		log.Fatal(err)
	}
	campaign(g.elector(lease.Options{Identity: "b"}), "jobs/billing")
	campaign(g.elector(lease.Options{Identity: "c", Priority: 5,
		Labels: map[string]string{"zone": "eu-1"}}), "jobs/billing")
	campaign(g.elector(lease.Options{Identity: "audit", NoLead: true}), "jobs/billing")
	waitFor(a, "jobs/billing", 4)

	cs, err := a.Candidates(context.Background(), "jobs/billing")
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range cs {
		fmt.Println(c.Identity, c.Priority, c.Labels, "leader:", c.Leader, "may lead:", c.MayLead)
	}
	// Output:
	// a 1 map[] leader: true may lead: true
	// c 5 map[zone:eu-1] leader: false may lead: true
	// b 0 map[] leader: false may lead: true
	// audit 0 map[] leader: false may lead: false
}

// HandOver moves leadership on purpose, to a named candidate: the
// leader's context ends first (with ErrHandover, not a loss), then the
// named one leads, with a higher token, although another waits ahead of it.
func ExampleLeadership_HandOver() {
	g := newGroup()
	defer g.close()
	a := g.elector(lease.Options{Identity: "a"})
	l, err := a.Campaign(context.Background(), "jobs/report")
	if err != nil {
		log.Fatal(err)
	}
	campaign(g.elector(lease.Options{Identity: "b"}), "jobs/report")
	waitFor(a, "jobs/report", 2)
	cWon := campaign(g.elector(lease.Options{Identity: "c"}), "jobs/report")
	waitFor(a, "jobs/report", 3)

	if err := l.HandOver(context.Background(), "c"); err != nil {
		log.Fatal(err)
	}
	fmt.Println("a's leadership ended by a handover:", errors.Is(context.Cause(l.Context()), lease.ErrHandover))
	next := await(cWon, "c leads")
	fmt.Println(next.Identity, "leads with a higher token:", next.Token > l.Token)
	// Output:
	// a's leadership ended by a handover: true
	// c leads with a higher token: true
}

// With Preempt, a leader hands over to a candidate of strictly higher
// priority once that one has waited PreemptAfter: the Bully algorithm,
// over a store.
func ExampleOptions_preempt() {
	g := newGroup()
	defer g.close()
	opts := func(id string, priority int) lease.Options {
		return lease.Options{Identity: id, Priority: priority, Preempt: true, PreemptAfter: 100 * time.Millisecond}
	}
	low := g.elector(opts("standby-dc", 1))
	l, err := low.Campaign(context.Background(), "jobs/primary")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(l.Identity, "leads")
	highWon := campaign(g.elector(opts("main-dc", 10)), "jobs/primary")
	await(l.Context().Done(), "standby-dc steps down")
	fmt.Println(l.Identity, "stepped down by a handover:", errors.Is(context.Cause(l.Context()), lease.ErrHandover))
	fmt.Println(await(highWon, "main-dc leads").Identity, "leads")
	// Output:
	// standby-dc leads
	// standby-dc stepped down by a handover: true
	// main-dc leads
}

// Proclaim changes what the leader publishes without a new term: the
// token stays, and observers see the new value.
func ExampleLeadership_Proclaim() {
	g := newGroup()
	defer g.close()
	e := g.elector(lease.Options{Identity: "worker-1"})
	ctx := context.Background()
	l, err := e.Campaign(ctx, "jobs/ingest")
	if err != nil {
		log.Fatal(err)
	}
	if err := l.Proclaim(ctx, "serving shard map v2"); err != nil {
		log.Fatal(err)
	}
	info, err := g.elector(lease.Options{}).Leader(ctx, "jobs/ingest")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s publishes %q, same term: %v\n", info.Identity, info.Value, info.Token == l.Token)
	// Output:
	// worker-1 publishes "serving shard map v2", same term: true
}
