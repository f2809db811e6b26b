// Package prom exports an elector's measurements to Prometheus. It is the
// only package of leasehold that imports the Prometheus client: pass
// New(reg) as lease.Options.Metrics.
package prom

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/lease/shard"
)

// Metrics is a lease.Metrics that updates Prometheus collectors:
//
//	leasehold_leader{election}                  1 while this elector leads, else 0
//	leasehold_transitions_total{election}       leaderships won
//	leasehold_losses_total{election,reason}     leaderships ended, by lease.Reason
//	leasehold_acquire_seconds{election}         histogram: Campaign call to win
//	leasehold_renew_seconds                     histogram: renewal round trip
//	leasehold_handovers_total{election,cause}   leaderships handed over, by lease.Cause*
//	leasehold_damped{election}                  1 while this elector sits out a damping penalty, else 0
//
// and, as a shard.Metrics (shard.Options.Metrics):
//
//	leasehold_shards_owned{group}               shards of the group this member holds
//	leasehold_shard_moves_total{group}          shards this member handed over to their new owner
//	leasehold_shard_handover_seconds{group}     histogram: HandOver call to its return, per move
//
// It implements lease.PolicyMetrics too. It is safe for concurrent use.
// A member of a large shard group that also passes it as the elector's
// lease.Options.Metrics gets one leasehold_leader series per shard it has
// held; leave the elector's Metrics unset there if that is too many.
type Metrics struct {
	leader      *prometheus.GaugeVec
	transitions *prometheus.CounterVec
	losses      *prometheus.CounterVec
	acquire     *prometheus.HistogramVec
	renew       prometheus.Histogram
	handovers   *prometheus.CounterVec
	damped      *prometheus.GaugeVec
	owned       *prometheus.GaugeVec
	moves       *prometheus.CounterVec
	moveTime    *prometheus.HistogramVec
}

var (
	_ lease.Metrics       = (*Metrics)(nil)
	_ lease.PolicyMetrics = (*Metrics)(nil)
	_ shard.Metrics       = (*Metrics)(nil)
)

// New creates the collectors and registers them with reg. It fails if reg
// already holds collectors of these names (one Metrics per registry; share
// it among electors of a process).
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		leader: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "leasehold_leader",
			Help: "1 while this process leads the election, else 0."}, []string{"election"}),
		transitions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "leasehold_transitions_total",
			Help: "Leaderships this process won."}, []string{"election"}),
		losses: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "leasehold_losses_total",
			Help: "Leaderships this process lost, by reason."}, []string{"election", "reason"}),
		acquire: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "leasehold_acquire_seconds",
			Help: "Time from a Campaign call to the win.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 10)},
			[]string{"election"}),
		renew: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "leasehold_renew_seconds",
			Help: "Round trip of a successful session renewal.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14)}),
		handovers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "leasehold_handovers_total",
			Help: "Leaderships this process handed over on purpose, by cause."}, []string{"election", "cause"}),
		damped: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "leasehold_damped",
			Help: "1 while this process sits out a flap-damping penalty in the election, else 0."}, []string{"election"}),
		owned: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "leasehold_shards_owned",
			Help: "Shards of the group this process holds."}, []string{"group"}),
		moves: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "leasehold_shard_moves_total",
			Help: "Shards this process handed over to their new owner."}, []string{"group"}),
		moveTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "leasehold_shard_handover_seconds",
			Help: "Time from a shard's HandOver call to its return.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14)},
			[]string{"group"}),
	}
	for _, c := range []prometheus.Collector{m.leader, m.transitions, m.losses, m.acquire, m.renew, m.handovers, m.damped,
		m.owned, m.moves, m.moveTime} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Leading sets leasehold_leader and counts a transition on a win.
func (m *Metrics) Leading(election string, leading bool) {
	if leading {
		m.leader.WithLabelValues(election).Set(1)
		m.transitions.WithLabelValues(election).Inc()
		return
	}
	m.leader.WithLabelValues(election).Set(0)
}

// Acquired observes leasehold_acquire_seconds.
func (m *Metrics) Acquired(election string, d time.Duration) {
	m.acquire.WithLabelValues(election).Observe(d.Seconds())
}

// Renewed observes leasehold_renew_seconds.
func (m *Metrics) Renewed(d time.Duration) { m.renew.Observe(d.Seconds()) }

// Lost counts leasehold_losses_total.
func (m *Metrics) Lost(election, reason string) {
	m.losses.WithLabelValues(election, reason).Inc()
}

// Handover counts leasehold_handovers_total.
func (m *Metrics) Handover(election, cause string) {
	m.handovers.WithLabelValues(election, cause).Inc()
}

// Damped sets leasehold_damped.
func (m *Metrics) Damped(election string, damped bool) {
	v := 0.0
	if damped {
		v = 1
	}
	m.damped.WithLabelValues(election).Set(v)
}

// Owned sets leasehold_shards_owned.
func (m *Metrics) Owned(group string, n int) { m.owned.WithLabelValues(group).Set(float64(n)) }

// HandedOver counts leasehold_shard_moves_total and observes
// leasehold_shard_handover_seconds.
func (m *Metrics) HandedOver(group string, d time.Duration) {
	m.moves.WithLabelValues(group).Inc()
	m.moveTime.WithLabelValues(group).Observe(d.Seconds())
}
