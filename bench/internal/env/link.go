package env

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Link is a TCP proxy on 127.0.0.1 in front of a store for one client,
// which can delay what the store sends to the client the way toxiproxy's
// latency toxic does: every chunk is written Delay after it arrived, in
// order, so the delay adds to the round trip without limiting throughput.
// The client→store direction is never delayed.
type Link struct {
	ln    net.Listener
	up    string
	delay atomic.Int64 // nanoseconds, read as each chunk arrives
	tap   atomic.Pointer[func(Chunk)]
	n     atomic.Int32 // connections accepted
	mu    sync.Mutex
	conns []net.Conn
	// Store is the store as reached through this link.
	Store *Store
}

// Chunk is bytes a Link read from one side of a connection.
type Chunk struct {
	Conn int       // the connection, numbered from 1 in the order accepted
	Up   bool      // from the client to the store
	At   time.Time // when the link read them
	B    []byte
}

// Tap has f called with each chunk the link reads from now on, in order
// for each connection and direction, as it arrives (before any delay).
// f gets a copy of the bytes, and must not block.
func (k *Link) Tap(f func(Chunk)) { k.tap.Store(&f) }

// tell passes a copy of the chunk b to the tap, if any.
func (k *Link) tell(conn int, up bool, b []byte) {
	if f := k.tap.Load(); f != nil {
		(*f)(Chunk{Conn: conn, Up: up, At: time.Now(), B: bytes.Clone(b)})
	}
}

// NewLink starts a link to st.
func NewLink(st *Store) (*Link, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	k := &Link{ln: ln, up: st.Addr(), Store: st.Via(ln.Addr().String())}
	go k.accept()
	return k, nil
}

// SetDelay sets the store→client delay of chunks arriving from now on; 0
// removes it.
func (k *Link) SetDelay(d time.Duration) { k.delay.Store(int64(d)) }

// Close closes the link and every connection through it.
func (k *Link) Close() {
	k.ln.Close()
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, c := range k.conns {
		c.Close()
	}
}

func (k *Link) accept() {
	for {
		c, err := k.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.DialTimeout("tcp", k.up, 5*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		k.mu.Lock()
		k.conns = append(k.conns, c, u)
		k.mu.Unlock()
		id := int(k.n.Add(1))
		go k.upstream(c, u, id)
		go k.downstream(u, c, id)
	}
}

// chunk is bytes from the store and when they may go to the client.
type chunk struct {
	b  []byte
	at time.Time
}

// upstream copies c, connection id's client side, to u.
func (k *Link) upstream(c, u net.Conn, id int) {
	defer c.Close()
	defer u.Close()
	b := make([]byte, 32<<10)
	for {
		n, err := c.Read(b)
		if n > 0 {
			k.tell(id, true, b[:n])
			if _, werr := u.Write(b[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// downstream copies u to c, connection id's client side, each chunk held
// until its time.
func (k *Link) downstream(u, c net.Conn, id int) {
	q := make(chan chunk, 1024)
	go func() {
		defer close(q)
		for {
			b := make([]byte, 32<<10)
			n, err := u.Read(b)
			if n > 0 {
				k.tell(id, false, b[:n])
				q <- chunk{b[:n], time.Now().Add(time.Duration(k.delay.Load()))}
			}
			if err != nil {
				return
			}
		}
	}()
	for ch := range q {
		time.Sleep(time.Until(ch.at))
		if _, err := c.Write(ch.b); err != nil {
			break
		}
	}
	u.Close()
	c.Close()
}
