package consul_test

import (
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/backends/backendtest"
	"github.com/leasehold/leasehold/consul"
	"github.com/leasehold/leasehold/consul/consultest"
)

// heapElections is the number of waiting elections testWatchHeap puts on
// one set, and heapBudget the Go heap each may cost.
const (
	heapElections = 10000
	heapBudget    = 4 << 10
)

// testWatchHeap measures the Go heap and goroutines one set costs per
// waiting election, with 10,000 requests on held keys, and fails above
// heapBudget bytes per election. The callers' Records are made before the
// first measurement: they are the caller's, not the set's.
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
	runtime.KeepAlive(recs)
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
