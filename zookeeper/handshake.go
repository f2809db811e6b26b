package zookeeper

import (
	"encoding/binary"
	"errors"
	"net"
	"time"
)

// handshakeConn is a TCP (or TLS) connection to one server as
// go-zookeeper sees it, from the link's dialer. It passes every byte
// through unchanged. From the server's first frame, the connect response
// of ZooKeeper's protocol, it reads the session timeout the server
// negotiated: go-zookeeper keeps that value to itself, and NewSession
// must know it (a session shorter than the TTL would let a holder outlast
// it). It reads nothing after that frame's head.
type handshakeConn struct {
	net.Conn
	l    *link
	head [connectHead]byte
	n    int // bytes of head read
}

// connectHead is the length of a connect response's head: the frame's
// length, the protocol version, the timeout (int32 milliseconds) and the
// session ID (int64), all big-endian.
const connectHead = 20

// Read passes the server's bytes to go-zookeeper.
func (c *handshakeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.n < connectHead {
		c.n += copy(c.head[c.n:], p[:n])
		if c.n == connectHead {
			c.l.handshake(c.head[:])
		}
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		c.l.failed(err)
	}
	return n, err
}

// handshake records the timeout of a connect response's head, unless it
// reports the session expired (session ID 0, timeout 0).
func (l *link) handshake(head []byte) {
	timeout := time.Duration(int32(binary.BigEndian.Uint32(head[8:]))) * time.Millisecond
	if binary.BigEndian.Uint64(head[12:]) != 0 {
		l.timeout.Store(int64(timeout))
	}
}
