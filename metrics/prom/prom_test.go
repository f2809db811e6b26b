package prom_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/lease"
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
