package zookeeper

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasehold/leasehold/integration/stores"
)

// testServers returns the servers in LEASEHOLD_ZK_SERVERS and the tickTime
// in LEASEHOLD_ZK_TICKTIME (default 2s), as the conformance tests do.
// Without servers it starts one in a container (package
// integration/stores), which skips the test where Docker or the image is
// missing, or fails it when CI=true.
func testServers(t testing.TB) ([]string, time.Duration) {
	t.Helper()
	servers := os.Getenv("LEASEHOLD_ZK_SERVERS")
	if servers == "" {
		return stores.ZooKeeper(t, 1), stores.ZooKeeperTick
	}
	tick := DefaultTickTime
	if v := os.Getenv("LEASEHOLD_ZK_TICKTIME"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("LEASEHOLD_ZK_TICKTIME=%q: want a positive duration", v)
		}
		tick = d
	}
	return strings.Split(servers, ","), tick
}

func newStore(t testing.TB, servers []string, opts Options) *store {
	t.Helper()
	opts.ConnOptions = quiet()
	s, err := open(servers, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	return s
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func uniqueName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// relay forwards loopback connections to a server; freeze black-holes the
// connections open at the time, both ways, while new ones still forward.
type relay struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	pairs  []*relayPair
	wg     sync.WaitGroup
}

type relayPair struct {
	client, server net.Conn
	frozen         atomic.Bool
}

func startRelay(t *testing.T, target string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, target: target}
	r.wg.Go(r.accept)
	t.Cleanup(r.close)
	return r
}

func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) accept() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", r.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p := &relayPair{client: c, server: s}
		r.mu.Lock()
		r.pairs = append(r.pairs, p)
		r.mu.Unlock()
		r.wg.Go(func() { p.pipe(c, s) })
		r.wg.Go(func() { p.pipe(s, c) })
	}
}

// pipe copies src to dst, dropping what it reads while frozen.
func (p *relayPair) pipe(src, dst net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.frozen.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				_ = src.Close()
			}
			return
		}
	}
}

func (r *relay) freeze() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.pairs {
		p.frozen.Store(true)
	}
}

func (r *relay) close() {
	_ = r.ln.Close()
	r.mu.Lock()
	for _, p := range r.pairs {
		_ = p.client.Close()
		_ = p.server.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}
