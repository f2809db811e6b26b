package lease

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// link is a TCP forwarder on 127.0.0.1 to a store's address, which a test
// can take down (every connection through it closed, new ones closed as
// they come) and bring back up.
type link struct {
	ln    net.Listener
	up    string
	wg    sync.WaitGroup // accept and the copies
	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

// newLink starts a link to up (host:port) that t's cleanup closes.
func newLink(t *testing.T, up string) *link {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	k := &link{ln: ln, up: up, conns: make(map[net.Conn]bool)}
	k.wg.Add(1)
	go k.accept()
	t.Cleanup(k.close)
	return k
}

// addr is the address clients dial to reach the store through k.
func (k *link) addr() string { return k.ln.Addr().String() }

// setDown takes k down (true), closing every connection through it, or
// brings it back up (false).
func (k *link) setDown(down bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.down = down
	if down {
		for c := range k.conns {
			c.Close()
		}
		clear(k.conns)
	}
}

func (k *link) close() {
	k.ln.Close()
	k.setDown(true)
	k.wg.Wait()
}

func (k *link) accept() {
	defer k.wg.Done()
	for {
		c, err := k.ln.Accept()
		if err != nil {
			return
		}
		k.open(c)
	}
}

// open forwards c to the store, unless k is down.
func (k *link) open(c net.Conn) {
	u, err := net.DialTimeout("tcp", k.up, 5*time.Second)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil || k.down {
		c.Close()
		if u != nil {
			u.Close()
		}
		return
	}
	k.conns[c], k.conns[u] = true, true
	k.wg.Add(2)
	go k.copy(u, c)
	go k.copy(c, u)
}

func (k *link) copy(dst, src net.Conn) {
	defer k.wg.Done()
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}
