package lease_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/leaseholdtest"
)

// endOrder is a Metrics that checks, at each end it is told of, that the
// leadership's context is already cancelled.
type endOrder struct {
	l   atomic.Pointer[lease.Leadership]
	mu  sync.Mutex
	n   int
	bad []string
}

func (m *endOrder) check(what string) {
	l := m.l.Load()
	if l == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n++
	if l.Context().Err() == nil {
		m.bad = append(m.bad, what)
	}
}

func (m *endOrder) Leading(_ string, leading bool) {
	if !leading {
		m.check("Leading(false)")
	}
}
func (m *endOrder) Handover(_, cause string) {
	if cause != lease.CauseResign {
		m.check("Handover " + cause)
	}
}
func (*endOrder) Acquired(string, time.Duration) {}
func (*endOrder) Renewed(time.Duration)          {}
func (*endOrder) Lost(string, string)            {}
func (*endOrder) Damped(string, bool)            {}

// TestMetricsAfterCancel: Metrics.Leading(false), and PolicyMetrics.Handover
// for a handover, come after the leadership's context is cancelled, as
// their docs say, for a handover and a resign.
func TestMetricsAfterCancel(t *testing.T) {
	srv := leaseholdtest.Etcd(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m := &endOrder{}
	e1, err := lease.New(srv.Store, lease.Options{TTL: 2 * time.Second, Identity: "one", Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	defer e1.Close(context.Background())
	e2, err := lease.New(srv.Store, lease.Options{TTL: 2 * time.Second, Identity: "two"})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close(context.Background())
	l, err := e1.Campaign(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	m.l.Store(l)
	won := make(chan *lease.Leadership, 1)
	go func() {
		l2, err := e2.Campaign(ctx, "m")
		if err != nil {
			t.Error(err)
		}
		won <- l2
	}()
	if err := l.AwaitTarget(ctx, "two"); err != nil {
		t.Fatal(err)
	}
	if err := l.HandOver(ctx, "two"); err != nil {
		t.Fatal(err)
	}
	l2 := <-won
	go func() {
		l, err := e1.Campaign(ctx, "m")
		if err != nil {
			t.Error(err)
		}
		m.l.Store(l)
		if err := l.Resign(ctx); err != nil {
			t.Error(err)
		}
		won <- l
	}()
	if err := l2.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	<-won
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n < 3 || len(m.bad) > 0 {
		t.Errorf("%d ends told, %v before the context was cancelled; want 3 or more (a handover's Handover and Leading(false), a resign's Leading(false)), none before", m.n, m.bad)
	}
}
