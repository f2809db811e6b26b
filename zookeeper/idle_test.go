package zookeeper_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/lease"
	"github.com/leasehold/leasehold/zookeeper"
	"github.com/leasehold/leasehold/zookeeper/zktest"
)

// idleTTL is the TTL of BenchmarkIdle, as in make bench.
const idleTTL = 2 * time.Second

// BenchmarkIdle reports the requests per minute the server receives
// (mntr's zk_packets_received) from an idle leader alone and from one
// idle waiting candidate more, for leasehold and for go-zookeeper's
// zk.Lock at the same TTL, as bench's idle scenario does. Each candidate
// has its own Store or connection. The server must serve nothing else
// meanwhile. Run with -benchtime=1x; LEASEHOLD_IDLE_WINDOW sets each
// window (default 10s).
func BenchmarkIdle(b *testing.B) {
	h := harness(b)
	window := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("LEASEHOLD_IDLE_WINDOW")); err == nil && v > 0 {
		window = v
	}
	for _, lib := range []string{"leasehold", "zk.Lock"} {
		b.Run(lib, func(b *testing.B) {
			for b.Loop() {
				leader, waiter := idleRates(b, h, lib, window)
				b.ReportMetric(leader, "leader-req/min")
				b.ReportMetric(waiter, "waiter-req/min")
			}
		})
	}
}

// idleRates returns the requests per minute of an idle leader of lib, and
// those one idle waiting candidate adds.
func idleRates(b *testing.B, h *zktest.Harness, lib string, window time.Duration) (leader, waiter float64) {
	election := fmt.Sprintf("idle-%d", time.Now().UnixNano())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := idleCandidate(b, ctx, h, lib, election, true); err != nil {
		b.Fatal(err)
	}
	settle(b)
	alone := packetRate(b, h.Servers[0], window)
	waiting := make(chan error, 1)
	go func() { waiting <- idleCandidate(b, ctx, h, lib, election, false) }()
	settle(b)
	both := packetRate(b, h.Servers[0], window)
	select {
	case err := <-waiting:
		b.Fatalf("the waiting candidate returned: %v", err)
	default:
	}
	return alone * 60, (both - alone) * 60
}

// settle lets a candidate's start-up requests pass.
func settle(b *testing.B) {
	b.Helper()
	time.Sleep(time.Second)
}

// idleCandidate campaigns for election with lib, returning once it leads
// if leader, and otherwise blocking until ctx ends.
func idleCandidate(b *testing.B, ctx context.Context, h *zktest.Harness, lib, election string, leader bool) error {
	if lib == "zk.Lock" {
		conn, _, err := zk.Connect(h.Servers, idleTTL, zk.WithLogInfo(false), zk.WithLogger(nopLogger{}))
		if err != nil {
			return err
		}
		b.Cleanup(conn.Close)
		l := zk.NewLock(conn, "/idle-native/"+election, zk.WorldACL(zk.PermAll))
		if leader {
			return l.Lock()
		}
		go func() { <-ctx.Done(); conn.Close() }()
		return l.Lock()
	}
	s, err := zookeeper.New(h.Servers, zookeeper.Options{TickTime: h.TickTime, ConnOptions: []func(*zk.Conn){zk.WithLogger(nopLogger{})}})
	if err != nil {
		return err
	}
	b.Cleanup(func() { _ = s.Close() })
	e, err := lease.New(s, lease.Options{TTL: idleTTL})
	if err != nil {
		return err
	}
	b.Cleanup(func() { _ = e.Close(context.Background()) })
	_, err = e.Campaign(ctx, election)
	if !leader && err == nil {
		return fmt.Errorf("the second candidate of %q leads", election)
	}
	return err
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}

// packetRate returns the packets per second the server at addr received
// over window.
func packetRate(b *testing.B, addr string, window time.Duration) float64 {
	b.Helper()
	before, start := packets(b, addr), time.Now()
	time.Sleep(window)
	return float64(packets(b, addr)-before) / time.Since(start).Seconds()
}

// packets returns mntr's zk_packets_received.
func packets(b *testing.B, addr string) int64 {
	b.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("mntr")); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "zk_packets_received\t"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("mntr of %s has no zk_packets_received (is mntr in 4lw.commands.whitelist?)", addr)
	return 0
}
