package consul_test

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
)

// heapElections is the number of waiting elections testWatchHeap puts on
// one set, and heapBudget the Go heap each may cost (issue 14).
// heapEach is the number of Store.Wait calls measured against it: each
// holds a connection, and the agent allows 200 per client.
const (
	heapElections = 10000
	heapBudget    = 4 << 10
	heapEach      = 150
)

// testWatchHeap measures the Go heap and goroutines one set costs per
// waiting election, with 10,000 requests on held keys, and fails above
// heapBudget bytes per election. The callers' Records are made before the
// first measurement: they are the caller's, not the set's. For the ratio,
// it also measures heapEach Store.Wait calls, one goroutine each.
func testWatchHeap(t *testing.T, h *consultest.Harness) {
	opts := consul.Options{Prefix: "watch-heap/"}
	c := h.Client(t)
	s := newStore(t, c, opts)
	ss := newSession(t, s)
	recs := lockMany(t, c, opts.Prefix, ss.ID(), heapElections+1)
	probe := recs[heapElections] // answered once the set has its view
	probe.Token = 0
	recs = recs[:heapElections]

	heap0, g0 := liveHeap(), runtime.NumGoroutine()
	ws, ch := watch(t, s)
	for i, r := range recs {
		ws.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: r})
	}
	ws.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: heapElections, Known: probe})
	if c := ch.next(t); c.Tag != heapElections || c.Err != nil {
		t.Fatalf("answer %+v, want the probe's", c)
	}
	heap1, g1 := liveHeap(), runtime.NumGoroutine()
	per := float64(heap1-heap0) / heapElections
	t.Logf("%d waiting elections on one set: %.0f B of Go heap per election (%d B in all), %d goroutines more",
		heapElections, per, heap1-heap0, g1-g0)
	if per > heapBudget {
		t.Errorf("%.0f B per waiting election, want at most %d", per, heapBudget)
	}
	runtime.KeepAlive(ws)
	_ = ws.Close()
	each := waitEachCost(t, h, recs[:heapEach])
	t.Logf("%d Store.Wait calls: %.0f B per election; the set costs %.3f of that", heapEach, each, per/each)
	runtime.KeepAlive(recs)
}

// waitEachCost returns the Go heap per election of one Store.Wait call
// per record, each in its goroutine on a client of its own, measured once
// every call has its connection.
func waitEachCost(t *testing.T, h *consultest.Harness, recs []backends.Record) float64 {
	d := &counter{dialed: make(chan struct{}, len(recs))}
	st := newStore(t, d.client(t, h.Addr), consul.Options{Prefix: "watch-heap/"})
	heap0 := liveHeap()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, r := range recs {
		wg.Go(func() { _, _ = st.Wait(ctx, r) })
	}
	for range recs {
		select {
		case <-d.dialed:
		case <-time.After(20 * time.Second):
			t.Fatalf("Store.Wait calls: %d connections within 20s, want %d", d.dials.Load(), len(recs))
		}
	}
	heap1 := liveHeap()
	cancel()
	wg.Wait()
	return float64(heap1-heap0) / float64(len(recs))
}

// liveHeap returns the bytes of live Go heap objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	m := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// lockMany locks n keys prefix+"e-<i>" with session id, in transactions
// of 64, and returns their Records as read back (the prefix holds the
// layout marker too).
func lockMany(t *testing.T, c *api.Client, prefix, id string, n int) []backends.Record {
	t.Helper()
	q := (&api.QueryOptions{}).WithContext(backendtest.Context(t, time.Minute))
	for i := 0; i < n; i += 64 {
		var ops api.TxnOps
		for j := i; j < min(i+64, n); j++ {
			ops = append(ops, &api.TxnOp{KV: &api.KVTxnOp{Verb: api.KVLock, Key: prefix + "e-" + strconv.Itoa(j),
				Value: []byte(id), Flags: api.LockFlagValue, Session: id}})
		}
		if ok, resp, _, err := c.Txn().Txn(ops, q); err != nil || !ok {
			t.Fatalf("lock keys %d to %d: %v %+v", i, i+len(ops), err, resp)
		}
	}
	recs := make([]backends.Record, n)
	for i := range recs {
		recs[i] = backends.Record{Election: "e-" + strconv.Itoa(i), Owner: id, Value: []byte(id)}
	}
	pairs, _, err := c.KV().List(prefix+"e-", q)
	if err != nil || len(pairs) != n {
		t.Fatalf("list %s: %d keys, %v; want %d", prefix, len(pairs), err, n)
	}
	for _, p := range pairs {
		i, _ := strconv.Atoi(p.Key[len(prefix)+2:])
		recs[i].Token, recs[i].Revision = p.ModifyIndex, p.ModifyIndex
	}
	return recs
}
