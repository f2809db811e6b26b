package etcd_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/etcd"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// childEnv, when set, makes the test binary serve an embedded etcd
// instead of running tests (see serveChild).
const childEnv = "LEASEHOLD_ETCD_COST_SERVER"

// BenchmarkWaitingCost reports what M elections waiting on one client cost
// the client's process: Go heap in B/election and goroutines per
// election, measured after a GC once every request is in place: M
// requests on one WatchSet. The server runs in
// a child process, so its heap and goroutines are not counted. Run with
// -benchtime=1x: each iteration is one measurement, and the figures are
// their mean.
func BenchmarkWaitingCost(b *testing.B) {
	ep := childServer(b)
	for _, m := range []int{1, 100, 10_000} {
		b.Run(fmt.Sprintf("WatchSet/M=%d", m), func(b *testing.B) { costOf(b, ep, m, waitSet) })
	}
}

// waiter starts m waits on s for els, absent at known's revision, and
// returns once every one is in place, with a function that ends them.
type waiter func(b *testing.B, s backends.Driver, els []string, known backends.Record) (stop func())

func costOf(b *testing.B, ep string, m int, start waiter) {
	var heap, gor float64
	for range b.N {
		h, g := measure(b, ep, m, start)
		heap, gor = heap+h/float64(b.N), gor+g/float64(b.N)
	}
	b.ReportMetric(heap, "B/election")
	b.ReportMetric(gor, "goroutines/election")
}

// measure returns the heap and goroutines per election that start adds,
// on a new client and a new prefix.
func measure(b *testing.B, ep string, m int, start waiter) (heap, goroutines float64) {
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	prefix := fmt.Sprintf("/cost/%d/", runs.Add(1))
	st, err := etcd.New(c, etcd.Options{Prefix: prefix})
	if err != nil {
		b.Fatal(err)
	}
	s := etcd.DriverOf(st)
	els := make([]string, m)
	for i := range els {
		els[i] = fmt.Sprintf("e%d", i)
	}
	known, err := s.Get(context.Background(), "sentinel")
	if err != nil {
		b.Fatal(err)
	}
	// The store moves past known: each wait reads once, as in an elector
	// whose record is a little behind.
	if _, err := c.Put(context.Background(), prefix+"sentinel", "x"); err != nil {
		b.Fatal(err)
	}
	h0, g0 := snapshot()
	stop := start(b, s, els, known)
	h1, g1 := snapshot()
	stop()
	return float64(int64(h1)-int64(h0)) / float64(m), float64(g1-g0) / float64(m)
}

// runs numbers the measurements, each of which has a prefix of its own.
var runs atomic.Int64

// waitSet makes one request per election on one set, then one for the
// sentinel, which has changed: reads are made in order, so its answer
// says every request before it is covered.
func waitSet(b *testing.B, s backends.Driver, els []string, known backends.Record) func() {
	ready := make(chan backends.Change, 1)
	set := s.Watch(func(c backends.Change) {
		if c.Election == "sentinel" {
			ready <- c
		}
	})
	for i, el := range els {
		set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: uint64(i), Known: backends.Record{Election: el, Revision: known.Revision}})
	}
	set.Wait(backends.WatchRequest{Kind: backends.WatchKey, Tag: 0, Known: known})
	awaitReady(b, ready)
	return func() { _ = set.Close() }
}

func awaitReady[T any](b *testing.B, ch <-chan T) {
	select {
	case <-ch:
	case <-time.After(2 * time.Minute):
		b.Fatal("waits not in place within 2 minutes")
	}
}

// snapshot returns the live heap after a GC and the goroutine count.
func snapshot() (uint64, int) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, runtime.NumGoroutine()
}

// childServer starts this test binary as an etcd server (see serveChild)
// and returns its endpoint; the server stops when b ends.
func childServer(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("etcd child: %v", err)
	}
	return line[:len(line)-1]
}

// serveChild serves an embedded etcd, prints its endpoint and stops when
// stdin closes.
func serveChild() int {
	srv, err := embedetcd.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "embedded etcd:", err)
		return 1
	}
	defer srv.Close()
	fmt.Println(srv.Endpoint)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}
