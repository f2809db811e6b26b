package etcd_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/lease"
)

// The herd: herdN candidates (a leader and herdN−1 waiters) on one
// election, and herdReleases resigns, each handing the election over.
const herdN, herdReleases = 10, 3

// writesPerRelease is what a release costs the store in the default mode,
// whatever the number of waiters: the resign's delete, the successor's
// create and the successor's leaving the queue.
const writesPerRelease = 3

// TestElectorHerdFree: in the default configuration a release wakes one
// waiter. The embedded etcd counts the transactions it served (every
// create, delete, enqueue and dequeue is one); with herdN−1 waiting, the
// releases cost writesPerRelease each, and nothing follows them. In key
// mode every waiter tries to create the key on each release; subtest
// KeyModeWakesAll shows that the count sees that.
func TestElectorHerdFree(t *testing.T) {
	base := lease.Options{TTL: 2 * time.Second}
	t.Run("Default", func(t *testing.T) {
		n0 := herd(t, base, 1+2*(herdN-1)) // each waiter's create and enqueue
		want := n0 + writesPerRelease*herdReleases
		awaitTxns(t, want, 10*time.Second, "the releases' writes")
		if n, more := awaitTxnsWithin(want+1, time.Second); more {
			t.Fatalf("%d releases among %d waiters cost %v store writes or more, want %v: more than one waiter woke",
				herdReleases, herdN-1, n-n0, want-n0)
		}
	})
	t.Run("KeyModeWakesAll", func(t *testing.T) {
		key := base
		key.Wait = lease.WaitKey
		n0 := herd(t, key, herdN) // each waiter's create
		awaitTxns(t, n0+writesPerRelease*herdReleases+1, 10*time.Second, "the herd's creates in key mode")
	})
}

// herd starts herdN electors with opts, lets the first lead and the others
// wait, and hands the election over herdReleases times, each to one
// waiter with a greater token. setup is the number of store transactions
// the campaigns cost before the first release. It returns the count of
// transactions the store had served just before the first release.
func herd(t *testing.T, opts lease.Options, setup int) float64 {
	t.Helper()
	el := backendtest.Election(t)
	ctx := backendtest.Context(t, 60*time.Second)
	es := make([]*lease.LeaseElector, herdN)
	for i := range es {
		store, _ := harness.NewStore(t)
		opts.Identity = fmt.Sprintf("herd-%d", i)
		e, err := lease.New(store, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(context.Background()) })
		es[i] = e
	}
	start := txnCount()
	l, err := es[0].Campaign(ctx, el)
	if err != nil {
		t.Fatal(err)
	}
	wins := make(chan *lease.Leadership, herdN)
	for _, e := range es[1:] {
		go func() {
			if w, err := e.Campaign(ctx, el); err == nil {
				wins <- w
			}
		}()
	}
	n0 := awaitTxns(t, start+float64(setup), 10*time.Second, "the waiters' campaigns")
	for range herdReleases {
		if err := l.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		next := awaitWin(t, wins)
		if next.Token <= l.Token {
			t.Fatalf("token %d after %d", next.Token, l.Token)
		}
		l = next
	}
	return n0
}

func awaitWin(t *testing.T, wins <-chan *lease.Leadership) *lease.Leadership {
	t.Helper()
	select {
	case l := <-wins:
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no waiter won within 10s of the release")
	}
	return nil
}

// awaitTxns waits until the store has served at least n transactions and
// returns the count then; it fails the test after within.
func awaitTxns(t *testing.T, n float64, within time.Duration, what string) float64 {
	t.Helper()
	got, ok := awaitTxnsWithin(n, within)
	if !ok {
		t.Fatalf("%s: the store served %v transactions within %v, want at least %v", what, got, within, n)
	}
	return got
}

// awaitTxnsWithin polls the store's count of transactions until it reaches
// n or within passes, and returns the count and whether it reached n.
func awaitTxnsWithin(n float64, within time.Duration) (float64, bool) {
	deadline := time.Now().Add(within)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		got := txnCount()
		if got >= n || time.Now().After(deadline) {
			return got, got >= n
		}
		<-tick.C
	}
}

// txnCount reads the embedded etcd's count of Txn calls handled, from the
// process's Prometheus registry, where the server registers its metrics
// (at its first gRPC call: none before is a count of 0).
func txnCount() float64 {
	mfs, _ := prometheus.DefaultGatherer.Gather() // what it gathered, whatever else failed
	n := 0.0
	for _, mf := range mfs {
		if mf.GetName() != "grpc_server_handled_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "grpc_method" && lp.GetValue() == "Txn" {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return n
}
