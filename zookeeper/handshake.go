package zookeeper

import (
	"encoding/binary"
	"errors"
	"net"
	"time"
)

// quietTimeout is the session timeout a session link shows go-zookeeper.
// go-zookeeper pings every third of the timeout it believes in and gives
// up on a silent server after two thirds; with this one it does neither,
// and the session lives only as long as KeepAlive renews it.
const quietTimeout = 1 << 30 * time.Millisecond // about 12 days

// Offsets in the first frame of each direction of a connection, counted
// from the frame's 4-byte length: where the connect request holds the
// session timeout asked (after the protocol version and the last zxid
// seen) and the connect response the one negotiated (after the protocol
// version), each an int32 of milliseconds; and connectHead, the length of
// the response's head: those fields and the session ID (int64).
const (
	requestTimeout  = 16
	responseTimeout = 8
	connectHead     = 20
)

// handshakeConn is a TCP (or TLS) connection to one server as
// go-zookeeper sees it, from the link's dialer. It touches only the
// first connectHead bytes each way, the connect request and response of
// ZooKeeper's protocol, and passes the rest through unchanged. It records
// the session timeout the server negotiated, which go-zookeeper keeps to
// itself. On a session link it also hides that timeout from go-zookeeper,
// which sees quietTimeout and so never pings, while the server is asked
// for the TTL on every connect, whatever go-zookeeper asks (it asks for
// what it saw last).
type handshakeConn struct {
	net.Conn
	l       *link
	head    [connectHead]byte // the connect response's head as the server sent it
	in, out int               // bytes of the first frame read and written
}

// Read passes the server's bytes to go-zookeeper.
func (c *handshakeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.in < connectHead {
		k := copy(c.head[c.in:], p[:n])
		if c.l.ttl > 0 {
			putMillis(p[:k], c.in, responseTimeout, quietTimeout)
		}
		if c.in += k; c.in == connectHead {
			c.l.handshake(c.head[:])
		}
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		c.l.failed(err)
	}
	return n, err
}

// Write passes go-zookeeper's bytes to the server, a session link's
// connect request asking for the TTL.
func (c *handshakeConn) Write(p []byte) (int, error) {
	if c.out >= connectHead || c.l.ttl == 0 {
		return c.Conn.Write(p)
	}
	q := append([]byte(nil), p...) // Write must not change p
	k := min(len(q), connectHead-c.out)
	putMillis(q[:k], c.out, requestTimeout, c.l.ttl)
	c.out += k
	return c.Conn.Write(q)
}

// putMillis writes into b, the bytes of a frame from offset off, those of
// d as an int32 of milliseconds at offset field that fall in it.
func putMillis(b []byte, off, field int, d time.Duration) {
	var v [4]byte
	binary.BigEndian.PutUint32(v[:], uint32(int32(d.Milliseconds())))
	for i := range b {
		if j := off + i - field; j >= 0 && j < len(v) {
			b[i] = v[j]
		}
	}
}

// handshake records the timeout of a connect response's head, unless it
// reports the session expired (session ID 0, timeout 0).
func (l *link) handshake(head []byte) {
	timeout := time.Duration(int32(binary.BigEndian.Uint32(head[responseTimeout:]))) * time.Millisecond
	if binary.BigEndian.Uint64(head[12:]) != 0 {
		l.timeout.Store(int64(timeout))
	}
}
