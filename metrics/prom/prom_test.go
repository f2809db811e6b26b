package prom_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
	"github.com/leasehold/leasehold/lease/shard/shardtest"
	"github.com/leasehold/leasehold/leaseholdtest"
	"github.com/leasehold/leasehold/metrics/prom"
)

// TestElectorMetrics runs an elector on a real etcd and checks what the
// collectors say after a win and a resign.
func TestElectorMetrics(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cli, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	store, _ := etcd.New(cli, etcd.Options{})
	reg := prometheus.NewRegistry()
	m, err := prom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := lease.New(store, lease.Options{TTL: 2 * time.Second, RenewInterval: 200 * time.Millisecond, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := e.Campaign(ctx, "jobs/a")
	if err != nil {
		t.Fatal(err)
	}
	want := `
# HELP leasehold_leader 1 while this process leads the election, else 0.
# TYPE leasehold_leader gauge
leasehold_leader{election="jobs/a"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "leasehold_leader"); err != nil {
		t.Fatal(err)
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	want = `
# HELP leasehold_losses_total Leaderships this process lost, by reason.
# TYPE leasehold_losses_total counter
leasehold_losses_total{election="jobs/a",reason="resigned"} 1
# HELP leasehold_transitions_total Leaderships this process won.
# TYPE leasehold_transitions_total counter
leasehold_transitions_total{election="jobs/a"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "leasehold_losses_total", "leasehold_transitions_total"); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(reg, "leasehold_acquire_seconds"); err != nil || n != 1 {
		t.Fatalf("acquire histogram series: %d (%v), want 1", n, err)
	}
}

// TestPolicyMetrics checks what the collectors of lease.PolicyMetrics say
// after handovers and a damping penalty that began and ended.
func TestPolicyMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := prom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	var pm lease.PolicyMetrics = m
	pm.Handover("jobs/a", lease.CausePreempt)
	pm.Handover("jobs/a", lease.CausePreempt)
	pm.Handover("jobs/a", lease.CauseRequest)
	pm.Damped("jobs/a", true)
	pm.Damped("jobs/b", true)
	pm.Damped("jobs/b", false)
	want := `
# HELP leasehold_damped 1 while this process sits out a flap-damping penalty in the election, else 0.
# TYPE leasehold_damped gauge
leasehold_damped{election="jobs/a"} 1
leasehold_damped{election="jobs/b"} 0
# HELP leasehold_handovers_total Leaderships this process handed over on purpose, by cause.
# TYPE leasehold_handovers_total counter
leasehold_handovers_total{cause="preempt",election="jobs/a"} 2
leasehold_handovers_total{cause="request",election="jobs/a"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "leasehold_damped", "leasehold_handovers_total"); err != nil {
		t.Fatal(err)
	}
}

// TestElectorHandoverMetric: an elector's handover on a real etcd counts in
// leasehold_handovers_total with its cause.
func TestElectorHandoverMetric(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close) // after the electors' cleanups
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	reg := prometheus.NewRegistry()
	m, err := prom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	elector := func(id string, metrics lease.Metrics) *lease.LeaseElector {
		cli, err := srv.Client()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cli.Close() })
		store, _ := etcd.New(cli, etcd.Options{})
		e, err := lease.New(store, lease.Options{TTL: 2 * time.Second, Identity: id, Metrics: metrics})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close(context.Background()) })
		return e
	}
	a, b := elector("A", m), elector("B", nil)
	l, err := a.Campaign(ctx, "jobs/a")
	if err != nil {
		t.Fatal(err)
	}
	won := make(chan error, 1)
	go func() { _, err := b.Campaign(ctx, "jobs/a"); won <- err }()
	ch, err := a.ObserveCandidates(ctx, "jobs/a")
	if err != nil {
		t.Fatal(err)
	}
	for cs := range ch {
		if len(cs) == 2 {
			break
		}
	}
	if err := l.HandOver(ctx, "B"); err != nil {
		t.Fatal(err)
	}
	if err := <-won; err != nil {
		t.Fatal(err)
	}
	want := `
# HELP leasehold_handovers_total Leaderships this process handed over on purpose, by cause.
# TYPE leasehold_handovers_total counter
leasehold_handovers_total{cause="handover",election="jobs/a"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "leasehold_handovers_total"); err != nil {
		t.Fatal(err)
	}
}

// TestShardMetrics: a shard group's member on a real etcd reports the
// shards it holds and, when a second member joins, each shard it hands over
// as a move with its handover time.
func TestShardMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := prom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	w := shardtest.NewWorld(t, leaseholdtest.Etcd(t), 2*time.Second, 8)
	moved := movesOf{Metrics: m, moved: make(chan struct{}, 8)}
	a := w.Join("a", shard.Options{Metrics: moved, Settle: time.Millisecond})
	w.Await("a holds every shard", 20*time.Second, func() bool { return w.Balanced(a) })
	b := w.Join("b", shard.Options{Settle: time.Millisecond})
	w.Await("a and b hold 4 each", 20*time.Second, func() bool { return w.Balanced(a, b) })
	for i := range 4 {
		select {
		case <-moved.moved:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d moves reported, want 4", i)
		}
	}
	want := fmt.Sprintf(`
# HELP leasehold_shard_moves_total Shards this process handed over to their new owner.
# TYPE leasehold_shard_moves_total counter
leasehold_shard_moves_total{group=%[1]q} 4
# HELP leasehold_shards_owned Shards of the group this process holds.
# TYPE leasehold_shards_owned gauge
leasehold_shards_owned{group=%[1]q} 4
`, w.Name())
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "leasehold_shard_moves_total", "leasehold_shards_owned"); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(reg, "leasehold_shard_handover_seconds"); err != nil || n != 1 {
		t.Fatalf("handover histogram series: %d (%v), want 1", n, err)
	}
}

// movesOf tells of each move it reports.
type movesOf struct {
	*prom.Metrics
	moved chan struct{}
}

func (m movesOf) HandedOver(group string, d time.Duration) {
	m.Metrics.HandedOver(group, d)
	m.moved <- struct{}{}
}
