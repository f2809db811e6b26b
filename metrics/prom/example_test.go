package prom_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/embedetcd"
	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/metrics/prom"
)

// Register the collectors once per registry, share the Metrics among the
// process's electors, and serve the registry (promhttp.HandlerFor) as usual.
// Here the example gathers the leader gauge directly.
func ExampleNew() {
	srv, err := embedetcd.Start() // an in-process etcd for the example
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	cli, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()
	store, err := etcd.New(cli, etcd.Options{})
	if err != nil {
		log.Fatal(err)
	}

	reg := prometheus.NewRegistry()
	m, err := prom.New(reg)
	if err != nil {
		log.Fatal(err)
	}
	e, err := lease.New(store, lease.Options{TTL: 2 * time.Second, Metrics: m})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(context.Background())

	ctx := context.Background()
	l, err := e.Campaign(ctx, "jobs/scheduler")
	if err != nil {
		log.Fatal(err)
	}
	printLeaderGauge(reg)
	_ = l.Resign(ctx)
	printLeaderGauge(reg)
	// Output:
	// leasehold_leader{election="jobs/scheduler"} 1
	// leasehold_leader{election="jobs/scheduler"} 0
}

// printLeaderGauge prints the leasehold_leader series of reg.
func printLeaderGauge(reg *prometheus.Registry) {
	families, err := reg.Gather()
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "leasehold_leader" {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, p := range s.GetLabel() {
				fmt.Printf("%s{%s=%q} %v\n", f.GetName(), p.GetName(), p.GetValue(), s.GetGauge().GetValue())
			}
		}
	}
}
