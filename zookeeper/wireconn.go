package zookeeper

import (
	"encoding/binary"
	"errors"
	"net"
	"time"

	"github.com/leasehold/leasehold/zookeeper/internal/wire"
)

// quietTimeout is the session timeout a session link shows go-zookeeper.
// go-zookeeper pings every third of the timeout it believes in and gives
// up on a silent server after two thirds; with this one it does neither,
// and the session lives only as long as KeepAlive renews it.
const quietTimeout = 1 << 30 * time.Millisecond // about 12 days

// wireConn is a TCP connection to one server as go-zookeeper sees it. It
// follows the frames both ways: it records the negotiated timeout of the
// handshake and the zxid of every reply (the Store's revisions), and on a
// session link it rewrites the timeouts of the handshake, so that
// go-zookeeper believes in quietTimeout while the server is always asked
// for, and keeps, the session's TTL.
type wireConn struct {
	net.Conn
	l       *link
	id      uint64 // its number in l.syncs
	in, out scanner
}

// Read passes the server's bytes to go-zookeeper.
func (c *wireConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.in.scan(p[:n], c.patchIn, c.frameIn)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		c.l.failed(err)
	}
	return n, err
}

// Write passes go-zookeeper's bytes to the server, the connect request of
// a session link with its timeout set to the TTL, and counts the sync
// requests written (see syncedRead).
func (c *wireConn) Write(p []byte) (int, error) {
	q := p
	if c.l.ttl > 0 && c.out.frame == 0 {
		q = append([]byte(nil), p...) // Write must not change p
	}
	syncs := 0
	c.out.scan(q, c.patchOut, func(frame int, head []byte) {
		if frame > 0 && wire.IsSync(head) {
			syncs++
		}
	})
	c.l.syncs.writing(c.id, syncs)
	n, err := c.Conn.Write(q)
	c.l.syncs.wrote(c.id, syncs, err == nil)
	return n, err
}

// patchIn hides the negotiated timeout of a session link from go-zookeeper.
func (c *wireConn) patchIn(frame, off int) (byte, bool) {
	return patchMillis(c.l.ttl > 0 && frame == 0, wire.ResponseTimeoutOffset, quietTimeout, off)
}

// patchOut asks the server for the TTL, whatever go-zookeeper believes.
func (c *wireConn) patchOut(frame, off int) (byte, bool) {
	return patchMillis(c.l.ttl > 0 && frame == 0, wire.RequestTimeoutOffset, c.l.ttl, off)
}

// patchMillis returns the byte at off of d encoded as the int32 of
// milliseconds that starts at field, if on and off falls in it.
func patchMillis(on bool, field int, d time.Duration, off int) (byte, bool) {
	if !on || off < field || off >= field+4 {
		return 0, false
	}
	var b [4]byte
	wire.PutMillis(b[:], d)
	return b[off-field], true
}

func (c *wireConn) frameIn(frame int, head []byte) {
	if frame == 0 {
		if len(head) == wire.HeadLen {
			c.l.handshake(wire.ConnectHead(head))
		}
		return
	}
	if h, err := wire.ParseReplyHeader(head); err == nil && h.Zxid > 0 {
		c.l.seen(h.Zxid)
	}
}

// scanner follows the frames of one direction of a connection, keeping the
// first wire.HeadLen bytes of each.
type scanner struct {
	head  [wire.HeadLen]byte
	pos   int // bytes of the current frame seen
	size  int // the current frame's size, length prefix included; 0 until known
	frame int // index of the current frame
}

// scan follows p. patch may replace a byte of p, given the frame index and
// the offset in the frame; scan keeps the original in the head. done gets
// the head of each frame as it completes.
func (s *scanner) scan(p []byte, patch func(frame, off int) (byte, bool), done func(frame int, head []byte)) {
	for len(p) > 0 {
		if s.pos < wire.HeadLen && (s.size == 0 || s.pos < s.size) {
			s.head[s.pos] = p[0]
			if b, ok := patch(s.frame, s.pos); ok {
				p[0] = b
			}
			s.pos++
			p = p[1:]
			if s.pos == 4 {
				s.size = 4 + int(binary.BigEndian.Uint32(s.head[:4]))
			}
		} else {
			k := min(len(p), s.size-s.pos)
			s.pos += k
			p = p[k:]
		}
		if s.pos == s.size {
			done(s.frame, s.head[:min(s.pos, wire.HeadLen)])
			s.frame, s.pos, s.size = s.frame+1, 0, 0
		}
	}
}
